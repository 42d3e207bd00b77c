"""Section 4, decode: reading the three fields of a million IDs, in SQL and
with the extension's functions."""

from snowbench.methods import SQL_NODE, SQL_SEQ, SQL_TS, decode_queries
from snowbench.report import (NET_MIN_MS, fmt_num, fmt_span, md_table, median,
                              net_ratio, per_round, progress, rotated)
from snowbench.server import BenchError


def run(b):
    n = b.p(1000000, 200000)
    reps = b.rounds(9, 3)
    s = b.sess
    rep = b.report
    s.run("DROP TABLE IF EXISTS dec_ids")
    s.run("CREATE TABLE dec_ids AS SELECT snowflake_nextval() AS id "
          "FROM generate_series(1, %d)" % n)
    # a key column, NOT NULL as keys are: only then may the planner turn
    # snowflake_decode(id) into the scalar accessors (a NULL ID decodes to
    # a NULL record, which a row of NULLs is not)
    s.run("ALTER TABLE dec_ids ALTER COLUMN id SET NOT NULL")
    s.run("VACUUM ANALYZE dec_ids")
    bad = int(s.value(
        "SELECT count(*) FROM dec_ids i, snowflake_decode(i.id) d "
        "WHERE d.ts IS DISTINCT FROM %s OR d.node_id IS DISTINCT FROM %s "
        "OR d.seq IS DISTINCT FROM %s" % (SQL_TS, SQL_NODE, SQL_SEQ)))
    if bad:
        raise BenchError("decode: SQL and C disagree on %d IDs" % bad)
    variants = decode_queries("dec_ids")
    progress("decode: %d IDs, %d rounds" % (n, reps))
    for _, _, q in variants:
        s.run(q)
    t = {v[0]: [] for v in variants}
    for r in range(reps):
        for name, _, q in rotated(variants, r):
            _, ms = s.timed(q)
            t[name].append(ms)
    ref = median(t["sql"])
    floor = median(t["scan"])
    rows = []
    for name, desc, _ in variants:
        med = median(t[name])
        rows.append(["`%s` %s" % (name, desc), fmt_num(med), fmt_span(t[name]),
                     fmt_num(med * 1e6 / n, 0),
                     "%.2f" % (ref / med),
                     "%.2f" % net_ratio(ref, med, floor) if name != "scan" else "-"])
    rep.emit([
        "## 4. Decoding %s IDs" % fmt_num(n, 0),
        "",
        "A table of %s IDs from `snowflake_nextval()`; each query reads all three"
        " fields of every ID and aggregates them (`max(ts)`, `sum(node_id)`, `sum(seq)`)"
        " so that nothing is skipped. The SQL version gives the same results as"
        " the C functions on every row (checked). %d rounds, rotated."
        " 'speed-up' = SQL median / this median; 'net' subtracts the scan-and-aggregate"
        " floor's median from both, counting a difference below %.1f ms as %.1f ms."
        % (fmt_num(n, 0), reps, NET_MIN_MS, NET_MIN_MS),
        "",
        "SQL arithmetic used: ts = `%s`, node = `%s`, seq = `%s`." % (SQL_TS, SQL_NODE, SQL_SEQ),
        ""] + md_table(["variant", "median ms", "min..max", "ns/ID",
                        "speed-up vs SQL (medians)", "net speed-up (medians)"],
                       rows) + [""])
    # the decoding work of each query: its time minus the floor's, per
    # round; every round counts (see net_ratio for rounds where the C
    # query is no slower than the floor)
    net = [net_ratio(x, y, f) for x, y, f in zip(t["sql"], t["c_fields"], t["scan"])]
    desc = ("snowflake_decode() >= 2x faster than the same arithmetic in SQL"
            " (decoding work, net of the scan-and-aggregate floor)")
    if net:
        rep.target("decode", desc, median(net) >= 2.0,
                   "median per-round net speed-up %.2f (%s); gross, with the floor: %.2f"
                   % (median(net), fmt_span(net, 2),
                      median(per_round(t["sql"], t["c_fields"]))))
    else:
        rep.target("decode", desc, False, "no rounds measured")
    for name, what in (("c_from", "in FROM (LATERAL)"), ("c_record", "as a record per row")):
        per = per_round(t["sql"], t[name])
        rep.emit("- (info) snowflake_decode() %s: median per-round gross speed-up %.2f (%s);"
                 " PostgreSQL builds and reads a one-row tuplestore (in FROM) or a"
                 " record (otherwise) per ID, which costs more than the decoding"
                 % (what, median(per), fmt_span(per, 2)))
    s.run("DROP TABLE dec_ids")
    rep.emit("")

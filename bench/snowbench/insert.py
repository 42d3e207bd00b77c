"""Section 3, insert: 2M + 2M rows into a table keyed by each method; time,
index size, WAL."""

from snowbench.methods import METHODS
from snowbench.report import (fmt_bytes, fmt_num, fmt_ratio, fmt_span, md_table,
                              median, per_round, progress, rotated)
from snowbench.server import BenchError

MEASURES = ("t1", "t2", "i1", "i2", "h2", "w1", "w2")


def ddl(m):
    """(CREATE TABLE statement, id expression) of method m's table."""
    if m == "bigserial":
        return ("CREATE TABLE ins_bigserial (id bigserial PRIMARY KEY, n integer NOT NULL)",
                "nextval('ins_bigserial_id_seq')")
    expr, typ, _ = METHODS[m]
    return ("CREATE TABLE ins_%s (id %s PRIMARY KEY, n integer NOT NULL)"
            % (m, typ), expr)


def measure(s, m, n):
    """Fills method m's new table with n rows, then n more; returns the
    MEASURES: times (ms), primary key sizes after each batch, heap size at
    the end, WAL bytes of each batch."""
    create, expr = ddl(m)
    s.run("DROP TABLE IF EXISTS ins_%s" % m)
    s.run(create)
    s.run("CHECKPOINT")
    ins = ("INSERT INTO ins_%s (id, n) SELECT %s, g FROM generate_series(%d, %d) g")
    lsn0 = s.value("SELECT pg_current_wal_insert_lsn()")
    _, t1 = s.timed(ins % (m, expr, 1, n))
    lsn1 = s.value("SELECT pg_current_wal_insert_lsn()")
    i1 = int(s.value("SELECT pg_relation_size('ins_%s_pkey')" % m))
    _, t2 = s.timed(ins % (m, expr, n + 1, 2 * n))
    lsn2 = s.value("SELECT pg_current_wal_insert_lsn()")
    i2 = int(s.value("SELECT pg_relation_size('ins_%s_pkey')" % m))
    w1 = int(s.value("SELECT pg_wal_lsn_diff('%s', '%s')" % (lsn1, lsn0)))
    w2 = int(s.value("SELECT pg_wal_lsn_diff('%s', '%s')" % (lsn2, lsn1)))
    h2 = int(s.value("SELECT pg_relation_size('ins_%s')" % m))
    cnt = int(s.value("SELECT count(*) FROM ins_%s" % m))
    if cnt != 2 * n:
        raise BenchError("insert %s: %d rows" % (m, cnt))
    s.run("DROP TABLE ins_%s" % m)
    return dict(t1=t1, t2=t2, i1=i1, i2=i2, h2=h2, w1=w1, w2=w2)


def run(b):
    n = b.p(2000000, 100000)
    reps = b.args.insert_rounds or b.rounds(5, 2)
    rep = b.report
    methods = ["bigserial", "nextval_cache100", "uuid_v4", "uuid_v7_sql",
               "instagram_plpgsql", "snowflake_bigint", "snowflake"]

    progress("insert: %d + %d rows, %d methods, %d rounds" %
             (n, n, len(methods), reps))
    res = {m: {key: [] for key in MEASURES} for m in methods}
    for r in range(reps):
        t_round = {}
        for m in rotated(methods, r):
            got = measure(b.sess, m, n)
            for key in MEASURES:
                res[m][key].append(got[key])
            t_round[m] = (got["t1"], got["t2"])
        progress("insert round %d/%d: %s" % (r + 1, reps, ", ".join(
            "%s %.0f+%.0f" % (m, x, y) for m, (x, y) in t_round.items())))
    b.checkpoint()

    rows = []
    for m in methods:
        d = res[m]
        rows.append(["`%s`" % m,
                     fmt_num(median(d["t1"]), 0), fmt_span(d["t1"], 0),
                     fmt_ratio(median(per_round(d["t1"], res["bigserial"]["t1"]))),
                     fmt_bytes(median(d["i1"])), fmt_bytes(median(d["w1"])),
                     fmt_num(median(d["t2"]), 0), fmt_span(d["t2"], 0),
                     fmt_ratio(median(per_round(d["t2"], res["bigserial"]["t2"]))),
                     fmt_bytes(median(d["i2"])), fmt_bytes(median(d["w2"])),
                     fmt_bytes(median(d["h2"]))])
    rep.emit([
        "## 3. Bulk INSERT into a table keyed by each method",
        "",
        "`CREATE TABLE ins_<m> (id <type> PRIMARY KEY, n integer NOT NULL)`, then"
        " `INSERT INTO ins_<m> (id, n) SELECT <gen>, g FROM generate_series(...)`"
        " of %s rows (first), then %s more (second) into the same table; %d"
        " rounds, methods rotated; the table is dropped and a checkpoint taken"
        " before each method. `bigserial` uses the column's own sequence"
        " (CACHE 1), i.e. native nextval. Ratios are medians of per-round ratios"
        " to bigserial; index = `pg_relation_size` of the primary key."
        % (fmt_num(n, 0), fmt_num(n, 0), reps),
        ""] + md_table(["method", "first ms", "min..max", "x bigserial",
                        "index after first", "WAL first", "second ms", "min..max",
                        "x bigserial", "index after second", "WAL second",
                        "heap after second"],
                       rows) + [""])
    for key, label in (("t1", "first"), ("t2", "second")):
        for ref, limit in (("bigserial", 1.05), ("uuid_v4", 0.8)):
            x = per_round(res["snowflake"][key], res[ref][key])
            rep.target("insert", "snowflake INSERT (%s %s rows) <= %s x %s"
                       % (label, fmt_num(n, 0), limit, ref), median(x) <= limit,
                       "median per-round ratio %.3f (%s)" % (median(x), fmt_span(x, 3)))
    for key, label in (("i1", "after %s rows" % fmt_num(n, 0)),
                       ("i2", "after %s rows" % fmt_num(2 * n, 0))):
        sf, bs = res["snowflake"][key], res["bigserial"][key]
        same = max(sf) == min(sf) == max(bs) == min(bs)
        rep.target("insert", "snowflake PK index the same size as bigserial's, %s" % label,
                   same, "snowflake %s, bigserial %s bytes" % (
                       "/".join(sorted(set(str(x) for x in sf))),
                       "/".join(sorted(set(str(x) for x in bs)))))
    rep.emit("")

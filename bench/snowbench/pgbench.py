"""Section 2, pgbench: one ID per transaction, SELECT and INSERT, every
method at 2 and 8 clients."""

from snowbench.methods import METHOD_ORDER, METHODS
from snowbench.report import (fmt_num, fmt_ratio, fmt_span, md_table, median,
                              per_round, progress, rotated)


def run(b):
    secs = b.pgbench_seconds(2, 1)
    reps = b.rounds(5, 1)
    clients_list = [2, 8]
    rep = b.report
    # tables for the INSERT runs: keyed by the method's own type, except
    # const (not unique) and clock_timestamp (two clients can read the
    # same microsecond), which get a column without a primary key
    b.insert_tables("pgb_", [(m, METHODS[m][1], m not in ("const", "clock_timestamp"))
                             for m in METHOD_ORDER])
    configs = [(k, m, c) for c in clients_list for k in ("select", "insert")
               for m in METHOD_ORDER]

    def script(kind, m):
        if kind == "select":
            return "SELECT %s;" % METHODS[m][0]
        return "INSERT INTO pgb_%s (id) VALUES (%s);" % (m, METHODS[m][0])

    total = len(configs) * reps * secs
    progress("pgbench: %d configurations x %d rounds x %d s = about %d s"
             % (len(configs), reps, secs, total))
    tps = {cfg: [] for cfg in configs}
    gen_events = {"hwm_backend_writes": 0, "clock_waits": 0, "clock_errors": 0,
                  "sequence_exhaustions": 0}
    for r in range(reps):
        b.sess.run("TRUNCATE %s" % ", ".join("pgb_%s" % m for m in METHOD_ORDER))
        b.checkpoint()
        for cfg in rotated(configs, r * 7):
            k, m, c = cfg
            before = b.status() if m.startswith("snowflake") else None
            tps[cfg].append(b.pgbench(script(k, m), c, secs,
                                      "%s-%s-%d" % (k, m, c)))
            if before:
                after = b.status()
                for key in gen_events:
                    gen_events[key] += after[key] - before[key]
        progress("pgbench round %d/%d done" % (r + 1, reps))

    # paired ratios within a round: snowflake / const (SELECT)
    rep.emit([
        "## 2. pgbench: one ID per transaction",
        "",
        "`pgbench -n -M prepared -T %d`, %d rounds; every round runs every"
        " configuration once, in an order rotated from round to round."
        " (a) `SELECT <gen>;`  (b) `INSERT INTO pgb_<method> (id) VALUES (<gen>);`"
        " into a table whose `id` has the method's type and a primary key,"
        " except `const` (bigint) and `clock_timestamp` (timestamptz), whose"
        " values are not unique: their tables have no primary key, so they"
        " show the cost of an insert without index maintenance."
        " The insert tables are emptied and a checkpoint is taken before each round;"
        " every INSERT commits with `fsync=on`, `synchronous_commit=on`."
        % (secs, reps),
        ""])
    for k in ("select", "insert"):
        for c in clients_list:
            ref = median(tps[(k, "nextval", c)])
            rows = []
            for m in METHOD_ORDER:
                xs = tps[(k, m, c)]
                rows.append(["`%s`" % m, fmt_num(median(xs), 0),
                             fmt_span(xs, 0), fmt_ratio(median(xs) / ref)])
            rep.emit(["**(%s) %s, %d clients**" % ("a" if k == "select" else "b",
                                                   k.upper(), c), ""] +
                     md_table(["method", "TPS median", "min..max",
                               "x nextval (medians)"], rows) + [""])
    for c in clients_list:
        per = per_round(tps[("select", "snowflake", c)], tps[("select", "const", c)])
        rep.target("pgbench", "snowflake SELECT TPS >= 0.95 x const TPS, %d clients" % c,
                   median(per) >= 0.95,
                   "median per-round ratio %.3f (%s); medians %s vs %s TPS"
                   % (median(per), fmt_span(per, 3),
                      fmt_num(median(tps[("select", "snowflake", c)]), 0),
                      fmt_num(median(tps[("select", "const", c)]), 0)))
    rep.emit("- (info) generator events during the snowflake runs of this section"
             " (`snowflake_status()` deltas): %s." % ", ".join(
                 "%s %d" % kv for kv in gen_events.items()))
    for c in clients_list:
        per = per_round(tps[("select", "snowflake", c)],
                        tps[("select", "snowflake_bigint", c)])
        per2 = per_round(tps[("select", "snowflake_bigint", c)],
                         tps[("select", "const", c)])
        rep.emit("- (info) %d clients, median per-round ratios: snowflake / snowflake_bigint"
                 " SELECT TPS %.3f (%s); snowflake_bigint / const %.3f (%s). The two"
                 " snowflake methods run the same generator; they differ only in the"
                 " result column's type (see the profile section)."
                 % (c, median(per), fmt_span(per, 3), median(per2), fmt_span(per2, 3)))
    rep.emit("")

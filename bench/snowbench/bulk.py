"""Section 1, bulk: a million IDs in one backend, every method."""

from snowbench.methods import METHOD_ORDER, METHODS, SEQ_PER_MS, bulk_query
from snowbench.report import (fmt_num, fmt_ratio, fmt_span, md_table, median,
                              progress, rotated)
from snowbench.server import BenchError


def timed_count(sess, name, query, n):
    """Milliseconds of a query that must return the count n."""
    rows, ms = sess.timed(query)
    if rows != [str(n)]:
        raise BenchError("bulk %s returned %r" % (name, rows))
    return ms


def run(b):
    n = b.p(1000000, 300000)
    reps = b.rounds(7, 3)
    floor_ms = n / SEQ_PER_MS     # IDs cannot come faster without borrowing
    core = ["clock_timestamp", "snowflake", "nextval", "snowflake_bigint"]
    others = [m for m in METHOD_ORDER if m not in core]
    progress("bulk: %d IDs per query, %d rounds" % (n, reps))
    # snowflake_nextval(n), where the installed version has it: info only
    extra = None
    if b.has_function("snowflake_nextval(bigint)"):
        extra = ("snowflake_nextval(n)", "SELECT count(x) FROM snowflake_nextval(%d) x" % n)
    for m in METHOD_ORDER:           # warm-up: plans, PL/pgSQL, caches
        b.sess.run(bulk_query(METHODS[m][0], n))
    if extra:
        b.sess.run(extra[1])
    extra_t = []
    before = b.status()
    samples = {m: [] for m in METHOD_ORDER}
    per_run = {m: [] for m in METHOD_ORDER}   # ratio vs nextval, same round
    sf_vs_ct, sf_vs_floor, sfb_vs_ct = [], [], []
    for r in range(reps):
        order = rotated(others, r) + rotated(core, r)
        t = {}
        for m in order:
            t[m] = timed_count(b.sess, m, bulk_query(METHODS[m][0], n), n)
            samples[m].append(t[m])
        if extra:
            ms = timed_count(b.sess, extra[0], extra[1], n)
            extra_t.append(ms / t["nextval"])
            samples.setdefault(extra[0], []).append(ms)
        for m in METHOD_ORDER:
            per_run[m].append(t[m] / t["nextval"])
        sf_vs_ct.append(t["snowflake"] / t["clock_timestamp"])
        sfb_vs_ct.append(t["snowflake_bigint"] / t["clock_timestamp"])
        sf_vs_floor.append(t["snowflake"] /
                           max(t["clock_timestamp"], floor_ms))
        progress("bulk round %d/%d: %s" % (r + 1, reps, ", ".join(
            "%s %.0f" % (m, t[m]) for m in METHOD_ORDER)))
    after = b.status()

    rows = []
    for m in METHOD_ORDER:
        med = median(samples[m])
        rows.append(["`%s`" % m, fmt_num(med), fmt_span(samples[m]),
                     fmt_num(med * 1e6 / n, 0),
                     fmt_ratio(med / median(samples["nextval"])),
                     "%s (%s)" % (fmt_ratio(median(per_run[m])),
                                  fmt_span(per_run[m], 2))])
    if extra:
        xs = samples[extra[0]]
        rows.append(["(info) `%s`, set-returning, after the round" % extra[0],
                     fmt_num(median(xs)), fmt_span(xs), fmt_num(median(xs) * 1e6 / n, 0),
                     fmt_ratio(median(xs) / median(samples["nextval"])),
                     "%s (%s)" % (fmt_ratio(median(extra_t)), fmt_span(extra_t, 2))])
    b.report.emit([
        "## 1. Bulk generation in one backend",
        "",
        "`SELECT count(x) FROM (SELECT <gen> x FROM generate_series(1, %s)) s`,"
        " %d rounds; in each round every method runs once, the order rotated"
        " from round to round, and `clock_timestamp`, `snowflake`, `nextval`,"
        " `snowflake_bigint` back to back at the end of the round."
        " One warm-up round is not counted." % (fmt_num(n, 0), reps),
        "",
    ] + md_table(["method", "median ms", "min..max ms", "ns/ID",
                  "x nextval (medians)", "x nextval, median of per-round ratios (min..max)"],
                 rows) + [
        "",
        "Per-round paired ratios (median, min..max): snowflake / clock_timestamp"
        " = %s (%s); snowflake_bigint / clock_timestamp = %s (%s);"
        " snowflake / max(clock_timestamp, %.0f ms) = %s (%s)." % (
            fmt_ratio(median(sf_vs_ct)), fmt_span(sf_vs_ct, 2),
            fmt_ratio(median(sfb_vs_ct)), fmt_span(sfb_vs_ct, 2),
            floor_ms, fmt_ratio(median(sf_vs_floor)),
            fmt_span(sf_vs_floor, 2)),
        "",
        "%.0f ms is the least time %s IDs take without running ahead of the"
        " clock (%d IDs per millisecond)."
        " During the measured rounds the generator issued %s IDs, found its"
        " millisecond used up %s times (it then borrows the next one), and"
        " ran at most %s ms ahead of the clock (since server start)." % (
            floor_ms, fmt_num(n, 0), SEQ_PER_MS,
            fmt_num(after["ids_issued"] - before["ids_issued"], 0),
            fmt_num(after["sequence_exhaustions"] -
                    before["sequence_exhaustions"], 0),
            after["max_clock_lead_ms"]),
        "",
    ])
    r1 = median(sf_vs_floor)
    b.report.target("bulk", "snowflake bulk <= 1.2 x max(clock_timestamp, %.0f ms)"
                    % floor_ms, r1 <= 1.2,
                    "median per-round ratio %.2f (median %.1f ms vs clock_timestamp %.1f ms)"
                    % (r1, median(samples["snowflake"]),
                       median(samples["clock_timestamp"])))
    r2 = median(per_run["snowflake"])
    b.report.target("bulk", "snowflake bulk <= 0.75 x nextval", r2 <= 0.75,
                    "median per-round ratio %.2f (median %.1f ms vs nextval %.1f ms)"
                    % (r2, median(samples["snowflake"]),
                       median(samples["nextval"])))
    b.report.emit("")

"""Section 5, timerange: counting the rows of a time window by ID range
against a separate created_at index."""

from snowbench.methods import NODE_ID
from snowbench.report import (fmt_bytes, fmt_num, fmt_ratio, fmt_span, md_table,
                              median, progress)
from snowbench.server import BenchError


def run(b):
    n = b.p(2000000, 400000)
    reps = b.p(300, 60)
    days = 30
    s = b.sess
    rep = b.report
    step_ms = days * 86400000 // n
    base = "2026-06-01 00:00:00+00"
    progress("time range: building %d rows over %d days" % (n, days))
    s.run("DROP TABLE IF EXISTS tr_events")
    s.run("CREATE TABLE tr_events (id snowflake PRIMARY KEY, "
          "created_at timestamptz NOT NULL, n integer NOT NULL)")
    # row g at a whole millisecond in [g*step, g*step + step/2): times
    # (and so IDs) increase with g, and id's time equals created_at
    s.run("SELECT setseed(0.25)")
    s.run("INSERT INTO tr_events (id, created_at, n) "
          "SELECT snowflake_from_parts(t, %d, (g %% 4096)::integer), t, g FROM ("
          "SELECT g, timestamptz '%s' + (g::bigint * %d + floor(random() * %d)::bigint) "
          "* interval '1 millisecond' AS t FROM generate_series(0, %d) g) s"
          % (NODE_ID, base, step_ms, step_ms // 2, n - 1))
    s.run("CREATE INDEX tr_events_created_at ON tr_events (created_at)")
    s.run("VACUUM ANALYZE tr_events")
    mism = int(s.value("SELECT count(*) FROM tr_events WHERE snowflake_timestamp(id) <> created_at"))
    if mism:
        raise BenchError("time range: %d rows whose ID time differs from created_at" % mism)
    # 24 one-hour windows spread over the 30 days
    windows = []
    for i in range(24):
        a = "timestamptz '%s' + interval '%d minutes'" % (base, i * 1770 + 13)
        windows.append((a, "(%s + interval '1 hour')" % a))
    q_id = ("SELECT count(*) FROM tr_events WHERE id >= snowflake_from_timestamp(%s) "
            "AND id < snowflake_from_timestamp(%s)")
    q_ts = "SELECT count(*) FROM tr_events WHERE created_at >= %s AND created_at < %s"
    counts = []
    for a, z in windows:
        c1 = int(s.value(q_id % (a, z)))
        c2 = int(s.value(q_ts % (a, z)))
        if c1 != c2:
            raise BenchError("time range: counts differ (%d vs %d) for %s" % (c1, c2, a))
        counts.append(c1)
    plans = {}
    for name, q in (("id", q_id), ("created_at", q_ts)):
        rows, _ = s.run("EXPLAIN (COSTS OFF) " + q % windows[0])
        plans[name] = [r.strip() for r in rows if "Scan" in r][:1]
    progress("time range: %d queries per approach" % reps)
    t = {"id": [], "created_at": []}
    for r in range(reps):
        a, z = windows[r % len(windows)]
        pair = [("id", q_id), ("created_at", q_ts)]
        for name, q in (pair if r % 2 == 0 else pair[::-1]):
            _, ms = s.timed(q % (a, z))
            t[name].append(ms)
    pk = int(s.value("SELECT pg_relation_size('tr_events_pkey')"))
    ci = int(s.value("SELECT pg_relation_size('tr_events_created_at')"))
    heap = int(s.value("SELECT pg_relation_size('tr_events')"))
    rows = []
    for name, label, idx in (("id", "ID range through the primary key", pk),
                             ("created_at", "`created_at` range through its own index", pk + ci)):
        rows.append([label, fmt_num(median(t[name]), 3), fmt_span(t[name], 3),
                     fmt_ratio(median(t[name]) / median(t["id"])),
                     fmt_bytes(idx), "; ".join(plans[name])])
    rep.emit([
        "## 5. Time-range query on %s rows" % fmt_num(n, 0),
        "",
        "`tr_events (id snowflake PRIMARY KEY, created_at timestamptz, n integer)`"
        " with an index on `created_at`; rows spread over %d days, one every ~%d ms,"
        " `id = snowflake_from_parts(created_at, %d, g %% 4096)` so that the ID's time"
        " is `created_at` (checked on every row). `count(*)` of a one-hour window,"
        " 24 different windows in turn (%d to %d rows each; both queries return"
        " the same count for every window), %d queries per approach, alternating,"
        " warm cache; table heap %s."
        % (days, step_ms, NODE_ID, min(counts), max(counts), reps, fmt_bytes(heap)),
        "",
        "- by ID: `%s`" % (q_id % ("a", "b")),
        "- by created_at: `%s`" % (q_ts % ("a", "b")),
        ""] + md_table(["approach", "median ms", "min..max", "x ID range (medians)",
                        "index bytes needed", "plan"], rows, right=[1, 2, 3, 4]) + [
        "",
        "Index bytes: the primary key (%s) serves the ID-range query alone; the"
        " `created_at` approach needs the primary key plus `tr_events_created_at`"
        " (%s), i.e. %.2fx the bytes." % (fmt_bytes(pk), fmt_bytes(ci), (pk + ci) / pk),
        ""])
    # a difference would have stopped the run above: information, not a target
    rep.emit("- (info) ID-range and created_at counts equal on all %d windows"
             " (%d..%d rows per window)." % (len(windows), min(counts), max(counts)))
    s.run("DROP TABLE tr_events")
    b.checkpoint()
    rep.emit("")

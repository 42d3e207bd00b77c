"""Section 7, hwm: high-water-mark (reservation) writes while IDs are made
at full rate, under each clock policy."""

import os
import time

from snowbench.report import fmt_num, md_table, progress

POLICIES = ("borrow", "wait", "error")


def set_policy(b, policy):
    """Sets snowflake.clock_policy for the whole server and waits until a new
    session sees it (the clock watcher rereads it on the same SIGHUP)."""
    b.sess.run("ALTER SYSTEM SET snowflake.clock_policy = '%s'" % policy)
    b.sess.run("SELECT pg_reload_conf()")
    for _ in range(100):
        if b.sess.value("SHOW snowflake.clock_policy") == policy:
            break
        time.sleep(0.05)
    # the previous policy may have left IDs ahead of the clock (borrow at
    # more than 4,096 IDs per ms): let the clock catch up first
    while b.sess.value("SELECT clock_lead_ms FROM snowflake_status()") not in ("0", ""):
        time.sleep(0.1)


def run(b):
    secs = b.p(10, 5)
    clients = min(2, os.cpu_count() or 1)
    script = "SELECT count(snowflake_nextval()) FROM generate_series(1, 1000);"
    rows = []
    for policy in POLICIES:
        progress("hwm: %d s of generation at full rate, clock_policy = %s" % (secs, policy))
        set_policy(b, policy)
        before = b.status()
        tps = b.pgbench(script, clients, secs, "hwm-" + policy)
        after = b.status()
        el = after["at"] - before["at"]
        d = {k: after[k] - before[k] for k in ("ids_issued", "hwm_writes",
                                               "hwm_backend_writes",
                                               "sequence_exhaustions",
                                               "clock_waits")}
        rows.append([policy, fmt_num(d["ids_issued"] / el, 0),
                     d["hwm_writes"], "%.2f" % (d["hwm_writes"] / el),
                     d["hwm_backend_writes"], fmt_num(d["clock_waits"], 0),
                     fmt_num(tps, 0)])
    b.sess.run("ALTER SYSTEM RESET snowflake.clock_policy")
    b.sess.run("SELECT pg_reload_conf()")
    b.report.emit([
        "## 7. High-water-mark writes at full generation rate",
        "",
        "`pgbench -T %d -c %d` of `%s` under each `snowflake.clock_policy`"
        " (default `snowflake.reserve_ahead`); `snowflake_status()` before and"
        " after each." % (secs, clients, script),
        ""] + md_table(["clock_policy", "IDs/s", "hwm_writes", "writes/s",
                        "hwm_backend_writes", "clock_waits", "pgbench tps"], rows) + [
        "",
        "`hwm_writes` counts the durable reservation writes (a write and fsync"
        " of `pg_snowflake/state`, a WAL record and flush; see \"Restarts and"
        " crashes\" in doc/operations.md); the clock watcher makes them, except"
        " the `hwm_backend_writes` that a backend made and waited for. A"
        " reservation reaches `snowflake.reserve_ahead` (2 s) past the clock,"
        " and the watcher renews it once a second while IDs are made: about"
        " one write a second under every policy.",
        ""])

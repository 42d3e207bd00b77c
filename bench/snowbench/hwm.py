"""Section 7, hwm: high-water-mark (reservation) writes while IDs are made
at full rate."""

import os

from snowbench.report import fmt_num, md_table, progress


def run(b):
    secs = b.p(10, 5)
    clients = min(2, os.cpu_count() or 1)
    script = "SELECT count(snowflake_nextval()) FROM generate_series(1, 1000);"
    progress("hwm: %d s of generation at full rate" % secs)
    before = b.status()
    tps = b.pgbench(script, clients, secs, "hwm")
    after = b.status()
    el = after["at"] - before["at"]
    d = {k: after[k] - before[k] for k in ("ids_issued", "hwm_writes",
                                           "hwm_backend_writes",
                                           "sequence_exhaustions")}
    b.report.emit([
        "## 7. High-water-mark writes at full generation rate",
        "",
        "`pgbench -T %d -c %d` of `%s`; `snowflake_status()` before and after"
        " (%.1f s apart)." % (secs, clients, script, el),
        ""] + md_table(["IDs issued", "IDs/s", "hwm_writes", "writes/s",
                        "hwm_backend_writes", "sequence_exhaustions", "max_clock_lead_ms"],
                       [[fmt_num(d["ids_issued"], 0), fmt_num(d["ids_issued"] / el, 0),
                         d["hwm_writes"], "%.2f" % (d["hwm_writes"] / el),
                         d["hwm_backend_writes"], fmt_num(d["sequence_exhaustions"], 0),
                         after["max_clock_lead_ms"]]]) + [
        "",
        "`hwm_writes` counts the durable reservation writes (see \"Restarts, crashes"
        " and reboots\" in the top-level README); the background worker makes them,"
        " except the `hwm_backend_writes` that a backend made and waited for."
        " pgbench reported %s transactions/s." % fmt_num(tps, 0),
        ""])

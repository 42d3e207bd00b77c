"""The head of the report: when, which sections, and the machine, server
and build the numbers come from."""

import os
import platform


def cpuinfo_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def mem_total():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return "%.1f GiB" % (int(line.split()[1]) / 1048576)
    except OSError:
        pass
    return "unknown"


def clocksource():
    try:
        with open("/sys/devices/system/clocksource/clocksource0/"
                  "current_clocksource") as f:
            return f.read().strip()
    except OSError:
        return "unknown"


def run(b):
    sess = b.sess
    version = sess.value("SELECT version()")
    ext = sess.value(
        "SELECT extversion FROM pg_extension WHERE extname = 'snowflake'")
    layout = sess.value(
        "SELECT format('node %s, epoch %s, %s/%s/%s time/node/sequence bits, clock policy %s', "
        "node_id, epoch, time_bits, node_bits, sequence_bits, clock_policy) "
        "FROM snowflake_status()")
    names = [k for k, _ in b.server.settings
             if k not in ("listen_addresses", "unix_socket_directories")]
    rows, _ = sess.run(
        "SELECT name, current_setting(name) FROM pg_settings "
        "WHERE name IN (%s) ORDER BY name" %
        ", ".join("'%s'" % n for n in names))
    settings = ", ".join("`%s=%s`" % tuple(r.split("|", 1)) for r in rows)
    b.report.emit([
        "# snowflake benchmark report",
        "",
        "Run %s UTC, mode **%s**, sections: %s." % (
            b.report.started.strftime("%Y-%m-%d %H:%M:%S"),
            "quick" if b.quick else "full", ", ".join(b.args.only)),
        "",
        "## Machine",
        "",
        "- CPUs (nproc): %d; model: %s" % (os.cpu_count(), cpuinfo_model()),
        "- RAM: %s; kernel: %s %s; clocksource: %s" % (
            mem_total(), platform.system(), platform.release(),
            clocksource()),
        "- load average at start: %s" % " ".join(
            "%.2f" % x for x in os.getloadavg()),
        "- PostgreSQL: %s" % version,
        "- snowflake %s: %s; source: %s" % (ext, layout,
                                            os.environ.get("BENCH_SOURCE", "not given")),
        "- server settings (identical for every method): %s" % settings,
        "- timings: psql `\\timing` on one persistent connection "
        "(statement only, no connection set-up); pgbench: `-n -M prepared`, "
        "tps without initial connection time, `-j` = clients",
        "",
    ])

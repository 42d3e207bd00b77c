"""perf record on the benchmark's backends: one session's backend running
a query, or every backend of a pgbench run."""

import os
import re
import shutil
import signal
import subprocess
import time

from snowbench.server import BenchError


def supported(event):
    """(whether perf can count 'event' here, why not)."""
    perf = shutil.which("perf")
    if not perf:
        return False, "perf is not installed"
    r = subprocess.run([perf, "stat", "-x", ",", "-e", event, "true"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0 or "<not" in r.stdout or "not supported" in r.stdout:
        last = (r.stdout.strip().splitlines() or ["failed"])[-1]
        return False, "`perf stat -e %s true` gives `%s`" % (event, last)
    return True, ""


def stop_recording(rec):
    """perf record writes its file on SIGINT; give it a minute."""
    rec.send_signal(signal.SIGINT)
    try:
        rec.wait(timeout=60)
    except subprocess.TimeoutExpired:
        rec.kill()


def report(out):
    """(rows of (percent, symbol, object), sample count) of a perf.data file;
    samples at addresses without a symbol (static functions of a stripped
    binary) are summed per object."""
    perf = shutil.which("perf")
    r = subprocess.run([perf, "report", "-i", out, "--no-children", "--stdio",
                        "-g", "none", "--sort", "symbol,dso"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    rows, unresolved, samples = [], {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"^# Samples: (\S+)", line)
        if m:
            samples = m.group(1)
        m = re.match(r"^\s+([\d.]+)%\s+\[(.)\]\s+(\S.*?)\s{2,}(\S+)", line)
        if not m:
            continue
        pct, sym, obj = float(m.group(1)), m.group(3).strip(), m.group(4)
        if re.match(r"^0x[0-9a-f]+$", sym):
            unresolved[obj] = unresolved.get(obj, 0.0) + pct
        else:
            rows.append((pct, sym, obj))
    for obj, pct in unresolved.items():
        rows.append((pct, "(static functions, no symbols)", obj))
    rows.sort(reverse=True)
    return rows, samples


def record_session(b, event, query, repeat):
    """perf record -g on the session's backend while it runs 'query'
    'repeat' times; returns report()'s (rows, samples)."""
    perf = shutil.which("perf")
    pid = b.sess.value("SELECT pg_backend_pid()")
    out = os.path.join(b.server.workdir, "perf.data")
    b.sess.run(query)
    with open(os.path.join(b.server.workdir, "perf.err"), "w") as errf:
        rec = subprocess.Popen([perf, "record", "-g", "-e", event, "-F", "4999",
                                "-p", pid, "-o", out], stdout=errf, stderr=errf)
        try:
            time.sleep(1.0)
            for _ in range(repeat):
                b.sess.run(query)
        finally:
            stop_recording(rec)
    return report(out)


def record_pgbench(b, event, script, clients, seconds, name):
    """perf record on every backend of a pgbench run; returns report()'s
    (rows, samples), or raises BenchError."""
    perf = shutil.which("perf")
    out = os.path.join(b.server.workdir, "perf-%s.data" % name)
    bench = subprocess.Popen(b.pgbench_cmd(script, clients, seconds, name),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rec = None
    try:
        pids = []
        for _ in range(50):
            time.sleep(0.1)
            rows, _ = b.sess.run("SELECT pid FROM pg_stat_activity WHERE "
                                 "application_name = 'pgbench' AND pid <> pg_backend_pid()")
            pids = [r for r in rows if r.strip()]
            if len(pids) >= clients:
                break
        if not pids:
            raise BenchError("no pgbench backends found")
        with open(out + ".err", "w") as errf:
            rec = subprocess.Popen([perf, "record", "-e", event, "-F", "999", "-p",
                                    ",".join(pids), "-o", out], stdout=errf, stderr=errf)
        output, _ = bench.communicate()
        if bench.returncode != 0:
            raise BenchError("pgbench failed (%s):\n%s" % (name, output[-3000:]))
    finally:
        # also on errors and Ctrl-C: neither pgbench nor perf outlives this
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        bench.stdout.close()
        if rec is not None:
            stop_recording(rec)
    return report(out)

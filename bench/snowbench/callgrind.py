"""valgrind's callgrind on single-user backends (postgres --single) on the
stopped server's data directory, and callgrind_annotate to read it."""

import os
import re
import subprocess

from snowbench.server import BenchError, pgbin


def per_id(r, n):
    """Instructions per ID of a callgrind result over n IDs."""
    return r["total"] / n


def run(server, name, stdin_text, toggle, parts=0):
    """One single-user backend under callgrind reading 'stdin_text'.
    Counts only inside the function 'toggle' unless it is None.  With
    parts > 0, a profile is dumped after each of the first 'parts' calls
    of 'toggle' and a list of results is returned.  A result is
    {"total": Ir, "self": [(Ir, function, object)], "incl": {function: Ir}}."""
    out = os.path.join(server.workdir, "callgrind.%s.out" % name)
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
    if toggle:
        cmd.append("--toggle-collect=" + toggle)
    if parts:
        cmd.append("--dump-after=" + toggle)
    cmd += [pgbin("postgres"), "--single", "-D", server.data, "bench"]
    r = subprocess.run(cmd, input=stdin_text, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    errors = [l for l in r.stderr.splitlines()
              if not l.startswith("==") and ("ERROR" in l or "FATAL" in l or
                                             "PANIC" in l or "Segmentation" in l)]
    files = ["%s.%d" % (out, i) for i in range(1, parts + 1)] if parts else [out]
    if r.returncode != 0 or errors or not all(os.path.exists(f) for f in files):
        tail = [l for l in r.stderr.splitlines() if not l.startswith("==")][-8:]
        raise BenchError("callgrind run '%s' failed (exit code %d): %s" % (
            name, r.returncode, " / ".join(tail) or "no output"))
    results = [annotate(f) for f in files]
    return results if parts else results[0]


def annotate(path):
    """Total, self and inclusive costs of one callgrind dump.  In a dump
    taken in the middle of the run, the frames still on the stack (main,
    the single-user loop) show the whole dump as their own cost; entries
    that hold (nearly) everything are dropped from the self list."""
    res = {"self": [], "incl": {}}
    for incl in ("no", "yes"):
        a = subprocess.run(["callgrind_annotate", "--inclusive=" + incl,
                            "--threshold=100", path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in a.stdout.splitlines():
            m = re.match(r"^\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?(\S.*?)\s*$", line)
            if not m:
                continue
            ir = int(m.group(1).replace(",", ""))
            what = m.group(2)
            if "PROGRAM TOTALS" in what:
                res["total"] = ir
                continue
            fm = re.match(r"^(.*?):(\S+)(?: \[(.*)\])?$", what)
            if not fm:
                continue
            fn, obj = fm.group(2), os.path.basename(fm.group(3) or "")
            if re.match(r"^0x[0-9a-f]+$", fn):
                fn = "static function at %s (no symbol)" % hex(int(fn, 16))
            if incl == "no":
                res["self"].append((ir, fn, obj))
            else:
                res["incl"][fn] = max(ir, res["incl"].get(fn, 0))
    if "total" not in res:
        raise BenchError("callgrind_annotate gave no total for %s" % path)
    res["self"] = [x for x in res["self"] if x[0] < 0.95 * res["total"]]
    return res

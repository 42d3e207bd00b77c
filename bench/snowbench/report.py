"""Statistics, number formats, markdown tables and the report itself.

The report is markdown: printed on stdout as it grows, written to
<out-dir>/<UTC start time>.md at the end.  Progress lines go to stderr.
"""

import datetime
import os
import statistics
import sys
import time

# Below this many milliseconds a time net of the scan-and-aggregate floor is
# noise, not decoding work: net_ratio() treats smaller (or negative) values
# as this much.
NET_MIN_MS = 0.5


def progress(msg):
    """Progress lines go to stderr; the report goes to stdout."""
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr,
          flush=True)


# --------------------------------------------------------------------------
# statistics

def median(xs):
    return statistics.median(xs)


def per_round(xs, refs):
    """Ratios of measurements taken in the same round: xs[i] / refs[i]."""
    return [a / b for a, b in zip(xs, refs)]


def net_ratio(ref, x, floor):
    """How many times faster x is than ref once the floor's time is taken
    off both.  Each net time is clamped to NET_MIN_MS, so a round where x
    is no slower than the floor counts as a very large speed-up instead of
    dividing by zero (or by a negative number) or being dropped; dropping
    such rounds would remove exactly those that favour x most."""
    return max(ref - floor, NET_MIN_MS) / max(x - floor, NET_MIN_MS)


def rotated(items, k):
    """The order of round k: items rotated by k places, so that slow phases
    of the machine hit all of them alike."""
    k %= max(len(items), 1)
    return items[k:] + items[:k]


# --------------------------------------------------------------------------
# formatting

def fmt_num(x, digits=1):
    if x is None:
        return "n/a"
    return "{:,.{d}f}".format(x, d=digits)


def fmt_span(xs, digits=1):
    return "%s..%s" % (fmt_num(min(xs), digits), fmt_num(max(xs), digits))


def fmt_ratio(x):
    return "n/a" if x is None else "%.2f" % x


def fmt_bytes(n):
    return "%.1f MiB" % (n / 1048576.0)


def fmt_si(x):
    """Three significant digits with k or M: 1.26 M, 205 k, 31.4 k."""
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        v = x / scale
        if v >= 0.9995:           # what would round to 1.00 or more
            return "%.*f %s" % (2 if v < 10 else 1 if v < 100 else 0, v, unit)
    return "%.0f" % x


def md_table(headers, rows, right=None):
    """A markdown table; 'right' lists the columns to right-align."""
    right = set(range(1, len(headers))) if right is None else set(right)
    out = ["| " + " | ".join(headers) + " |",
           "|" + "|".join("---:" if i in right else "---"
                          for i in range(len(headers))) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return out


# --------------------------------------------------------------------------
# the report

class Report:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.lines = []           # markdown lines
        self.targets = []         # (section, description, passed, detail)
        self.notes = []
        self.started = datetime.datetime.now(datetime.timezone.utc)

    def path(self, suffix):
        """A file of this run in the output directory: <UTC start><suffix>."""
        return os.path.join(self.out_dir,
                            self.started.strftime("%Y%m%dT%H%M%SZ") + suffix)

    def emit(self, lines):
        if isinstance(lines, str):
            lines = [lines]
        self.lines.extend(lines)
        print("\n".join(lines), flush=True)

    def target(self, section, desc, passed, detail):
        self.targets.append((section, desc, passed, detail))
        self.emit("- **%s** %s: %s" % ("PASS" if passed else "FAIL", desc,
                                       detail))

    def finish(self, error=None):
        lines = []
        if self.notes:
            lines += ["## Run notes", ""] + ["- " + n for n in self.notes] + [""]
        lines += ["## Targets", ""]
        if self.targets:
            for sec, desc, ok, detail in self.targets:
                lines.append("- **%s** [%s] %s: %s" % ("PASS" if ok else "FAIL", sec, desc, detail))
        else:
            lines.append("(no targets in the selected sections)")
        lines.append("")
        if error:
            lines += ["## Error", "", "The run stopped early:", "", "```",
                      str(error)[-4000:], "```", ""]
        el = (datetime.datetime.now(datetime.timezone.utc) - self.started).total_seconds()
        lines.append("Total run time: %.0f s." % el)
        self.emit(lines)
        os.makedirs(self.out_dir, exist_ok=True)
        path = self.path(".md")
        with open(path, "w") as f:
            f.write("\n".join(self.lines) + "\n")
        progress("report written to %s" % path)

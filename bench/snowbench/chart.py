"""The data file and the SVG chart of the scaling table.  The chart is
drawn by bench/scaling.gp with gnuplot, the same script that draws the
reference chart bench/scaling-16core.svg from bench/scaling-16core.dat."""

import os
import shutil
import subprocess

GNUPLOT_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                              "scaling.gp")


def write_data(path, title, comments, headings, clients, series):
    """Writes the data file: '#' comments, the chart's title, a header of
    quoted headings, then a line per client count; series[h] holds heading
    h's values by client count."""
    with open(path, "w") as f:
        for c in comments + ["title: " + title]:
            f.write("# %s\n" % c)
        f.write("clients " + " ".join('"%s"' % h for h in headings) + "\n")
        for i, n in enumerate(clients):
            f.write("%d %s\n" % (n, " ".join("%.0f" % series[h][i] for h in headings)))


def draw_command(datafile):
    """The gnuplot command line that draws 'datafile' (X.dat) into X.svg."""
    return ["gnuplot", "-e", "datafile='%s'" % datafile.replace("'", "''"), GNUPLOT_SCRIPT]


def draw(datafile, svgfile):
    """Draws the chart into svgfile, the data file's name with .svg for
    .dat; returns None, or why there is no chart."""
    cmd = draw_command(datafile)
    if not shutil.which("gnuplot"):
        return "gnuplot is not installed (Debian: gnuplot-nox)"
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0 or not os.path.exists(svgfile):
        return "gnuplot failed (exit code %d): %s" % (r.returncode,
                                                       " ".join(r.stdout.split())[-500:])
    return None

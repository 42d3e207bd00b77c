# bench/scaling.gp: draws the scaling table as an SVG chart: transactions
# per second of one statement against the number of pgbench clients, one
# line per method, clients on a log scale.
#
#   gnuplot -e "datafile='bench/scaling-16core.dat'" bench/scaling.gp
#
# Variables: datafile (required); outfile (default: datafile with .svg for
# .dat); charttitle (default: the data file's "# title: " line).  The data
# file is what bench.py --scaling writes next to its report: '#' comment
# lines, a header line (the word clients, then one double-quoted title per
# method), then one line per client count with the TPS of each method; '?'
# marks a value not measured.

if (!exists("datafile")) {
    print "usage: gnuplot -e \"datafile='X.dat'\" bench/scaling.gp"
    exit status 2
}
if (!exists("outfile")) {
    outfile = (datafile[strlen(datafile)-3:] eq ".dat") ? \
              datafile[1:strlen(datafile)-4] . ".svg" : datafile . ".svg"
}
if (!exists("charttitle")) {
    charttitle = system(sprintf("sed -n 's/^# title: //p' '%s' | head -n 1", datafile))
}
if (strlen(charttitle) == 0) {
    charttitle = "SELECT TPS against pgbench clients"
}

set terminal svg size 820,500 dynamic noenhanced font "sans,13" background rgb "white"
set output outfile
set datafile missing "?"

set title charttitle
set xlabel "pgbench clients (log scale)"
set ylabel "thousand transactions per second"
set logscale x 2
set xtics 1, 2
set autoscale xfix
set offsets graph 0.05, graph 0.05, 0, 0
set yrange [0:*]
set format y "%.0f"
set grid xtics ytics lc rgb "#dddddd"
set border 3
set tics nomirror
set key outside right center reverse Left samplen 2 spacing 1.3

# The same method keeps its colour from chart to chart, whichever columns a
# data file has: the titles are read from its header line.
header = system(sprintf("grep -v '^#' '%s' | head -n 1", datafile))
name(i) = word(header, i)
colour(t) = t eq "snowflake_nextval()" ? "#1f4e9c" : \
            t eq "nextval()" ? "#2ca02c" : \
            t eq "pgEdge snowflake 2.6" ? "#9467bd" : \
            t eq "uuidv7()" ? "#ff7f0e" : \
            t eq "gen_random_uuid()" ? "#8c564b" : \
            t eq "SELECT 1" ? "#7f7f7f" : "#000000"

plot for [i=2:words(header)] datafile using 1:(column(i) / 1000.0) title name(i) \
     with linespoints linecolor rgb colour(name(i)) \
     linewidth (name(i) eq "snowflake_nextval()" ? 3 : 2) \
     dashtype 1 + (name(i) eq "SELECT 1") pointtype 7 pointsize 0.8

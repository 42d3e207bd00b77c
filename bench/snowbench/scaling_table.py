"""The scaling table (--scaling): transactions per second of one statement
per transaction at several client counts, for snowflake_nextval(), a
sequence, gen_random_uuid(), uuidv7() where the server has it (PostgreSQL
18 and later) and SELECT 1 as the floor; INSERT at the highest client count;
a million IDs in one backend.  The table goes into the report, the SELECT
rows also into a data file and an SVG chart next to it (chart.py)."""

import collections
import os
import shlex

from snowbench import chart
from snowbench.bulk import timed_count
from snowbench.methods import bulk_query
from snowbench.report import fmt_num, fmt_si, md_table, median, progress, rotated

# key (table and script names), heading, SQL expression, id column type of
# the INSERT table (None: no INSERT), function the server must have
Column = collections.namedtuple("Column", "key heading expr type needs")
COLUMNS = [
    Column("snowflake", "snowflake_nextval()", "snowflake_nextval()", "snowflake", None),
    Column("nextval", "nextval()", "nextval('bench_seq')", "bigint", None),
    Column("uuidv7", "uuidv7()", "uuidv7()", "uuid", "uuidv7()"),
    Column("uuid_v4", "gen_random_uuid()", "gen_random_uuid()", "uuid", None),
    Column("select_1", "SELECT 1", "1", None, None),
]

MAX_DEFAULT_CLIENTS = 64


def default_clients(ncpu, quick):
    """Powers of two from 1 up to 4 clients per CPU, at most 64 (4 in quick
    mode): past that, more clients only queue on the same CPUs."""
    top = min(MAX_DEFAULT_CLIENTS, 4 * ncpu, 4 if quick else MAX_DEFAULT_CLIENTS)
    out, n = [], 1
    while n <= top:
        out.append(n)
        n *= 2
    return out


def measure_tps(b, cols, clients, secs, reps):
    """SELECT TPS by (column key, clients) and INSERT TPS by column key at
    the highest client count, lists of one value per round."""
    top = max(clients)
    inserting = [c for c in cols if c.type]
    b.insert_tables("sct_", [(c.key, c.type, True) for c in inserting])
    select = {(c.key, n): [] for c in cols for n in clients}
    insert = {c.key: [] for c in inserting}
    for r in range(reps):
        for i, n in enumerate(clients):
            for c in rotated(cols, r + i):
                select[(c.key, n)].append(b.pgbench("SELECT %s;" % c.expr, n, secs,
                                                    "sct-select-%s-%d" % (c.key, n)))
        b.sess.run("TRUNCATE %s" % ", ".join("sct_" + c.key for c in inserting))
        b.checkpoint()
        for c in rotated(inserting, r):
            insert[c.key].append(b.pgbench(
                "INSERT INTO sct_%s (id) VALUES (%s);" % (c.key, c.expr), top, secs,
                "sct-insert-%s-%d" % (c.key, top)))
        progress("scaling table round %d/%d done" % (r + 1, reps))
    return select, insert


def measure_bulk(b, cols, n, runs):
    """Milliseconds of n IDs in one backend by column key, after a warm-up."""
    for c in cols:
        b.sess.run(bulk_query(c.expr, n))
    ms = {c.key: [] for c in cols}
    for r in range(runs):
        for c in rotated(cols, r):
            ms[c.key].append(timed_count(b.sess, c.key, bulk_query(c.expr, n), n))
    return ms


def clients_label(k):
    return "%d client%s" % (k, "" if k == 1 else "s")


def emit_table(b, cols, clients, select, insert, bulk, how):
    """The table in the reference's shape: a column per method, a row per
    client count, then INSERT and the single backend."""
    n, runs, top = b.p(1000000, 300000), b.p(5, 3), max(clients)
    rows = [["SELECT, TPS, %s" % clients_label(k)] +
            [fmt_si(median(select[(c.key, k)])) for c in cols] for k in clients]
    rows.append(["INSERT, TPS, %s" % clients_label(top)] +
                [fmt_si(median(insert[c.key])) if c.type else "—" for c in cols])
    rows.append(["%s IDs in one backend" % fmt_num(n, 0)] +
                ["%s–%s ms" % (fmt_num(min(bulk[c.key]), 0), fmt_num(max(bulk[c.key]), 0))
                 for c in cols])
    floor = ", ".join("%.2f at %d" % (median(select[("snowflake", k)]) /
                                      median(select[("select_1", k)]), k) for k in clients)
    b.report.emit([
        "## Scaling table: TPS against clients",
        "",
        "`pgbench -n -M prepared -T %d -c N -j N` of `SELECT <method>;` at N = %s"
        " clients, %s, the methods side by side at each N (order rotated); then"
        " `INSERT INTO sct_<method> (id) VALUES (<method>);` at %s into a table"
        " whose `id` is the primary key, of the method's type (tables emptied and"
        " a checkpoint taken first); then %d runs of `%s` in one backend (min–max)."
        " This machine has %d CPUs; pgbench runs on the same ones."
        % (b.pgbench_seconds(5, 2), ", ".join(str(k) for k in clients), how,
           clients_label(top), runs, bulk_query("<method>", n), os.cpu_count() or 1),
        ""] + md_table([""] + [c.heading for c in cols], rows) + [
        "",
        "`snowflake_nextval()` TPS as a share of `SELECT 1`'s, by clients: %s."
        " Every INSERT commits with `fsync=on` and `synchronous_commit=on`;"
        " the time-ordered keys all insert into the rightmost leaf page of"
        " their primary key." % floor,
        ""])


def emit_chart(b, cols, clients, select, how):
    """Writes the data file of the SELECT rows next to the report and draws
    the chart from it."""
    rep = b.report
    datafile, svgfile = rep.path("-scaling.dat"), rep.path("-scaling.svg")
    os.makedirs(rep.out_dir, exist_ok=True)
    chart.write_data(
        datafile,
        "SELECT TPS against clients, %d CPUs, PostgreSQL %s, %d s per point" % (
            os.cpu_count() or 1, b.sess.value("SHOW server_version"),
            b.pgbench_seconds(5, 2)),
        ["snowflake scaling table, run %s UTC: TPS of SELECT <method> by pgbench"
         " clients, %s; drawn by bench/scaling.gp" % (
             rep.started.strftime("%Y-%m-%d %H:%M"), how)],
        [c.heading for c in cols], clients,
        {c.heading: [median(select[(c.key, k)]) for k in clients] for c in cols})
    why_not = chart.draw(datafile, svgfile)
    lines = ["Chart data: `%s`." % os.path.basename(datafile)]
    if why_not:
        lines.append("No chart: %s. Draw it with `%s`." % (
            why_not, shlex.join(chart.draw_command(datafile))))
    else:
        lines.append("Chart: `%s` (SELECT TPS against clients, log scale on clients)."
                     % os.path.basename(svgfile))
    rep.emit([" ".join(lines), ""])


def run(b):
    clients = b.args.clients
    secs = b.pgbench_seconds(5, 2)
    reps = b.rounds(1, 1)
    how = "one run per point" if reps == 1 else "medians of %d rounds" % reps
    cols = [c for c in COLUMNS if c.needs is None or b.has_function(c.needs)]
    progress("scaling table: %d methods x %d client counts x %d s, INSERT at %d"
             " clients, %d round(s)" % (len(cols), len(clients), secs, max(clients), reps))
    select, insert = measure_tps(b, cols, clients, secs, reps)
    n, runs = b.p(1000000, 300000), b.p(5, 3)
    progress("scaling table: %s IDs in one backend, %d runs" % (fmt_num(n, 0), runs))
    bulk = measure_bulk(b, cols, n, runs)
    emit_table(b, cols, clients, select, insert, bulk, how)
    missing = [c.heading for c in COLUMNS if c not in cols]
    if missing:
        b.report.emit(["Not measured: %s, which this server does not have (`uuidv7()`"
                       " is built in from PostgreSQL 18 on)." % ", ".join(missing), ""])
    emit_chart(b, cols, clients, select, how)

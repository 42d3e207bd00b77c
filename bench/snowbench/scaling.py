"""Section 6, scaling: IDs per second of snowflake and nextval at 1 to 16
clients, one ID per transaction and a thousand."""

import os

from snowbench.methods import SEQ_PER_MS
from snowbench.report import (fmt_num, fmt_ratio, fmt_span, md_table, median,
                              progress, rotated)


def run(b):
    secs = b.pgbench_seconds(2, 1)
    reps = b.rounds(5, 1)
    clients_list = [1, 2, 4, 8, 16]
    batch = 1000
    kinds = [
        ("snowflake", "SELECT snowflake_nextval();", 1),
        ("nextval", "SELECT nextval('bench_seq');", 1),
        ("snowflake x%d" % batch,
         "SELECT count(snowflake_nextval()) FROM generate_series(1, %d);" % batch, batch),
        ("nextval x%d" % batch,
         "SELECT count(nextval('bench_seq')) FROM generate_series(1, %d);" % batch, batch),
    ]
    configs = [(k, c) for c in clients_list for k in range(len(kinds))]
    progress("scaling: %d configurations x %d rounds x %d s" % (len(configs), reps, secs))
    ids = {cfg: [] for cfg in configs}
    before = b.status()
    for r in range(reps):
        for cfg in rotated(configs, r * 3):
            k, c = cfg
            _, script, per_tx = kinds[k]
            tps = b.pgbench(script, c, secs, "scale-%d-%d" % (k, c))
            ids[cfg].append(tps * per_tx)
        progress("scaling round %d/%d done" % (r + 1, reps))
    after = b.status()
    rows = []
    for c in clients_list:
        row = ["%d" % c]
        for k in range(len(kinds)):
            row.append("%s (%s)" % (fmt_num(median(ids[(k, c)]), 0),
                                    fmt_span(ids[(k, c)], 0)))
        row.append(fmt_ratio(median(ids[(0, c)]) / median(ids[(1, c)])))
        row.append(fmt_ratio(median(ids[(2, c)]) / median(ids[(3, c)])))
        rows.append(row)
    eff = []
    for k in range(len(kinds)):
        one = median(ids[(k, 1)])
        eff.append("%s: %s" % (kinds[k][0], ", ".join(
            "%dc %.2f" % (c, median(ids[(k, c)]) / one) for c in clients_list)))
    ncpu = os.cpu_count() or 1
    sf2 = median(ids[(2, min(2, ncpu))]) / median(ids[(2, 1)])
    nv2 = median(ids[(3, min(2, ncpu))]) / median(ids[(3, 1)])
    peak = max(median(ids[(2, c)]) for c in clients_list)
    exh = after["sequence_exhaustions"] - before["sequence_exhaustions"]
    b.report.emit([
        "## 6. Scaling with concurrent clients",
        "",
        "IDs per second, median (min..max) of %d runs of `pgbench -n -M prepared -T %d`"
        " per cell, all cells interleaved. `x%d` rows call the generator %d times per"
        " transaction (`SELECT count(<gen>) FROM generate_series(1, %d)`), which"
        " removes most of the per-transaction cost and shows the generator itself"
        " under contention. This machine has %d CPUs: beyond %d clients they only"
        " share the same CPUs." % (reps, secs, batch, batch, batch, ncpu, ncpu),
        ""] + md_table(["clients"] + [k[0] for k in kinds] +
                       ["snowflake / nextval (medians)",
                        "snowflake x%d / nextval x%d (medians)" % (batch, batch)],
                       rows) + [
        "",
        "Throughput relative to 1 client (ratios of medians): " + "; ".join(eff) + ".",
        "",
        "Generator under contention (x%d, medians): %d clients give %.2fx the 1-client rate for"
        " snowflake and %.2fx for nextval; the highest snowflake rate is %s IDs/s,"
        " %.0f%% of the %s IDs/s that %d sequence numbers per millisecond allow."
        " Sequence exhaustions during this section: %s (the generator then borrows"
        " the next millisecond); largest clock lead since start: %d ms. %s" % (
            batch, min(2, ncpu), sf2, nv2, fmt_num(peak, 0),
            100.0 * peak / (SEQ_PER_MS * 1000), fmt_num(SEQ_PER_MS * 1000, 0),
            SEQ_PER_MS, fmt_num(exh, 0), after["max_clock_lead_ms"],
            "The spinlock does not look like a bottleneck: snowflake scales at least"
            " as well as nextval." if sf2 >= 0.9 * nv2 else
            "Snowflake scales worse than nextval here, which points at contention"
            " in the generator."),
        ""])

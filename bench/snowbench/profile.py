"""Section 8, profile: where the time and the instructions of one ID go.

perf on a backend and on pgbench's backends (perf.py) where the machine
lets perf sample; callgrind on single-user backends (callgrind.py) where it
has no hardware counters.  Callgrind needs the server stopped, so this
section comes last.
"""

import shutil

from snowbench import callgrind, perf
from snowbench.callgrind import per_id
from snowbench.methods import bulk_query, decode_queries
from snowbench.report import fmt_num, md_table, median, progress
from snowbench.server import BenchError


def run(b):
    rep = b.report
    n_perf = b.p(1000000, 300000)
    n_cg = b.p(200000, 50000)
    k_tx = b.p(10000, 3000)
    rep.emit(["## 8. Profile of the hot path", ""])
    hw_ok, why_not = perf.supported("instructions:u")
    sw_ok, _ = perf.supported("cpu-clock")
    query = bulk_query("snowflake_nextval()", n_perf)
    progress("profile: timing the profiled query")
    ms = median([b.sess.timed(query)[1] for _ in range(3)])

    def emit_perf(event, label):
        progress("profile: perf record -e %s" % event)
        rows, samples = perf.record_session(b, event, query, 5)
        if not rows:
            rep.emit("perf record gave no samples for `%s`." % event)
            return
        tab = [[sym.replace("|", "\\|"), obj, "%.1f%%" % pct,
                "%.1f" % (pct / 100.0 * ms * 1e6 / n_perf)] for pct, sym, obj in rows[:18]]
        rep.emit(["%s: `perf record -g -e %s` on a backend running the bulk snowflake"
                  " query of section 1 (%s IDs) 5 times; %s samples, user space only."
                  " Self time; ns/ID = share x %.1f ms (median of this query here) / IDs."
                  % (label, event, fmt_num(n_perf, 0), samples, ms),
                  ""] + md_table(["function", "object", "self", "ns/ID"], tab,
                                 right=[2, 3]) + [""])

    if hw_ok:
        emit_perf("instructions:u", "Instruction profile")
    else:
        rep.emit(["No hardware counters here (%s), so perf can only sample time;"
                  " instruction counts come from valgrind's callgrind below." % why_not, ""])
        if sw_ok:
            try:
                emit_perf("cpu-clock", "Time profile (sampled by the software clock)")
            except BenchError as e:
                rep.emit(["perf cpu-clock profile failed: %s" % e, ""])
        else:
            rep.emit(["perf cannot sample here either; no time profile.", ""])
    if hw_ok or sw_ok:
        try:
            perf_pgbench(b, "instructions:u" if hw_ok else "cpu-clock")
        except BenchError as e:
            rep.emit(["perf profile of pgbench failed: %s" % e, ""])
    if hw_ok or not shutil.which("valgrind"):
        if not hw_ok:
            rep.emit(["valgrind is not installed: no instruction profile.", ""])
        return

    # callgrind runs single-user backends on the data directory: stop the server
    b.sess.run("DROP TABLE IF EXISTS prof_ids")
    b.sess.run("CREATE TABLE prof_ids AS SELECT snowflake_nextval() AS id "
               "FROM generate_series(1, %d)" % n_cg)
    b.sess.run("VACUUM ANALYZE prof_ids")
    progress("profile: callgrind (server stopped): generation, decoding, statements")
    b.stop()
    if b.server.running:
        raise BenchError("could not stop the server for callgrind: %s"
                         % b.server.stop_error)
    gen = [("snowflake", "snowflake_nextval()"), ("nextval", "nextval('bench_seq')"),
           ("clock_timestamp", "clock_timestamp()"), ("const", "1::bigint")]
    decs = decode_queries("prof_ids")
    tx = [("const-0", "1::bigint", 0), ("const", "1::bigint", k_tx),
          ("snowflake_bigint", "snowflake_nextval()::bigint", k_tx),
          ("snowflake", "snowflake_nextval()", k_tx)]
    g = d = t = None
    failures = []
    try:
        parts = callgrind.run(b.server, "gen",
                              "".join(bulk_query(e, n_cg) + ";\n" for _, e in gen),
                              "standard_ExecutorRun", parts=len(gen))
        g = {nm: r for (nm, _), r in zip(gen, parts)}
    except BenchError as e:
        failures.append(str(e))
    try:
        parts = callgrind.run(b.server, "dec", "".join(q + ";\n" for _, _, q in decs),
                              "standard_ExecutorRun", parts=len(decs))
        d = {nm: r for (nm, _, _), r in zip(decs, parts)}
    except BenchError as e:
        failures.append(str(e))
    try:
        t = {}
        for name, expr, k in tx:
            t[name] = callgrind.run(b.server, "tx-" + name,
                                    "PREPARE p AS SELECT %s;\n" % expr + "EXECUTE p;\n" * k,
                                    None)
    except BenchError as e:
        failures.append(str(e))
        t = None
    rep.emit(["Callgrind: single-user backends (`postgres --single`, library preloaded,"
              " no clock watcher there). For generation and decoding only instructions"
              " inside the executor are counted (`--toggle-collect=standard_ExecutorRun`,"
              " one dump per query). Under valgrind `clock_gettime` is a real system"
              " call whose kernel side is not counted; natively it is a vDSO read of"
              " the TSC (see the time profile above).", ""])
    for f in failures:
        rep.emit(["**Profile run failed**: %s" % f, ""])
    if g:
        report_generation(rep, g, gen, n_cg)
    if d:
        report_decoding(rep, d, decs, n_cg)
    if t:
        report_statements(rep, t, tx, k_tx)


def perf_pgbench(b, event):
    """Where the backends' time goes in the 8-client SELECT of section 2."""
    rep = b.report
    clients, secs = 8, b.p(4, 2)
    progress("profile: perf record -e %s on %d pgbench backends" % (event, clients))
    res = {}
    for name, expr in (("const", "1::bigint"),
                       ("snowflake_bigint", "snowflake_nextval()::bigint"),
                       ("snowflake", "snowflake_nextval()")):
        res[name] = perf.record_pgbench(b, event, "SELECT %s;" % expr, clients, secs,
                                           "prof-" + name)
    rows, samples = res["snowflake"]
    tab = [[sym.replace("|", "\\|"), obj, "%.1f%%" % pct] for pct, sym, obj in rows[:15]]
    rep.emit(["pgbench profile: `perf record -e %s` on the %d backends of `pgbench -M"
              " prepared -c %d -T %d` running `SELECT snowflake_nextval();` (%s samples,"
              " user space only: the kernel side of the socket I/O is not in it)."
              % (event, clients, clients, secs, samples), ""] +
             md_table(["function", "object", "self"], tab, right=[2]) + [""])
    keys = [("strcmp (any variant; fmgr looks up internal functions by name)",
             lambda sym, obj: "strcmp" in sym),
            ("s_lock (spinlock contention)", lambda sym, obj: sym == "s_lock"),
            ("perform_spin_delay", lambda sym, obj: sym == "perform_spin_delay"),
            ("everything in snowflake.so", lambda sym, obj: obj == "snowflake.so"),
            ("clock_gettime (vDSO)", lambda sym, obj: "clock_gettime" in sym),
            ("static postgres functions (no symbols)",
             lambda sym, obj: obj == "postgres" and sym.startswith("(static"))]
    lines = []
    for label, match in keys:
        vals = []
        for name in ("const", "snowflake_bigint", "snowflake"):
            pct = sum(p for p, sym, obj in res[name][0] if match(sym, obj))
            vals.append("%.1f%%" % pct)
        lines.append([label] + vals)
    rep.emit(["Share of backend user time, same run for each statement:", ""] +
             md_table(["function", "`SELECT 1::bigint`", "`SELECT snowflake_nextval()::bigint`",
                       "`SELECT snowflake_nextval()`"], lines) + [""])


def emit_self_costs(rep, title, r, n, limit):
    """The 'limit' functions of callgrind result 'r' with the highest self
    cost, per ID of the n IDs the query made or read."""
    tab = [[fn, obj, fmt_num(ir / n, 1), "%.1f%%" % (100.0 * ir / r["total"])]
           for ir, fn, obj in r["self"][:limit]]
    rep.emit([title, ""] +
             md_table(["function", "object", "instructions/ID", "share"], tab,
                      right=[2, 3]) + [""])


def report_generation(rep, g, gen, n_cg):
    rep.emit(["**Generation**, `%s`:" % bulk_query("<gen>", n_cg), ""] +
             md_table(["generator", "instructions/ID", "minus const"],
                      [["`%s`" % nm, fmt_num(per_id(g[nm], n_cg), 0),
                        fmt_num(per_id(g[nm], n_cg) - per_id(g["const"], n_cg), 0)]
                       for nm, _ in gen]) + [""])
    emit_self_costs(rep, "Top functions by self cost in the snowflake generation query:",
                         g["snowflake"], n_cg, 15)
    incl = g["snowflake"]["incl"]
    own = ["snowflake_nextval", "snowflake_generate", "allocate_slots",
           "snowflake_unix_ms_now", "clock_gettime", "__clock_gettime",
           "generator_state_or_error", "snowflake_shared_state",
           "RecoveryInProgress", "pgstat_init_function_usage",
           "pgstat_end_function_usage"]
    parts = ["`%s` %s" % (k, fmt_num(incl[k] / n_cg, 1)) for k in own if k in incl]
    if parts:
        rep.emit(["Inclusive instructions per ID: " + ", ".join(parts) + ".", ""])
    nv = g["nextval"]["incl"]
    for k in ("nextval_oid", "nextval_internal"):
        if k in nv:
            rep.emit(["For comparison, `%s` of nextval: %s instructions per ID inclusive."
                      % (k, fmt_num(nv[k] / n_cg, 1)), ""])
            break


def report_decoding(rep, d, decs, n_cg):
    scan = per_id(d["scan"], n_cg)
    rep.emit(["**Decoding** %s IDs (the queries of section 4 over a table `prof_ids`):"
              % fmt_num(n_cg, 0), ""] +
             md_table(["variant", "instructions/ID", "minus scan floor"],
                      [["`%s`" % nm, fmt_num(per_id(d[nm], n_cg), 0),
                        fmt_num(per_id(d[nm], n_cg) - scan, 0)]
                       for nm, _, _ in decs]) + [""])
    emit_self_costs(rep, "Top functions by self cost, `snowflake_decode(id)` in FROM:",
                         d["c_from"], n_cg, 12)
    dincl = d["c_from"]["incl"]
    parts = ["`%s` %s" % (k, fmt_num(dincl[k] / n_cg, 1))
             for k in ("ExecFunctionScan", "ExecMakeTableFunctionResult",
                       "snowflake_decode", "heap_form_tuple", "tuplestore_begin_heap",
                       "tuplestore_puttuple", "tuplestore_end", "ExecReScanFunctionScan")
             if k in dincl]
    if parts:
        rep.emit(["Inclusive instructions per ID in that query: " + ", ".join(parts) + ".", ""])


def report_statements(rep, t, tx, k_tx):
    base = t["const-0"]["total"]
    per_stmt = {nm: (t[nm]["total"] - base) / k_tx for nm, _, k in tx if k}
    c_tx = per_stmt["const"]
    rep.emit(["**One ID per statement** (what pgbench's SELECT does): `PREPARE p AS"
              " SELECT <gen>` then %s x `EXECUTE p` in a single-user backend, all"
              " instructions counted, minus a run without the EXECUTEs. (Single-user"
              " mode prints results with `debugtup` instead of the wire protocol, but"
              " both set up the output function of the result column for every"
              " execution.)" % fmt_num(k_tx, 0), ""] +
             md_table(["statement", "instructions/statement", "vs const"],
                      [["`SELECT %s`" % expr, fmt_num(per_stmt[nm], 0),
                        "+%s (+%.1f%%)" % (fmt_num(per_stmt[nm] - c_tx, 0),
                                           100.0 * (per_stmt[nm] - c_tx) / c_tx)]
                       for nm, expr, k in tx if k]) + [""])
    # where the difference between the two snowflake statements goes
    def self_map(r):
        m = {}
        for ir, fn, obj in r["self"]:
            key = "%s (%s)" % (fn, obj)
            m[key] = m.get(key, 0) + ir
        return m
    a_, b_ = self_map(t["snowflake"]), self_map(t["snowflake_bigint"])
    delta = sorted(((a_.get(k, 0) - b_.get(k, 0)) / k_tx, k) for k in set(a_) | set(b_))
    delta = [x for x in delta[::-1] if x[0] > 50][:8]
    if delta:
        rep.emit(["Largest self-cost differences per statement, `SELECT snowflake_nextval()`"
                  " minus `SELECT snowflake_nextval()::bigint` (same generator, result type"
                  " `snowflake` instead of `bigint`):", ""] +
                 md_table(["function", "extra instructions/statement"],
                          [[k, "+" + fmt_num(v, 0)] for v, k in delta]) + [""])
    oinc = t["snowflake"]["incl"].get("OidOutputFunctionCall")
    oinc_b = t["snowflake_bigint"]["incl"].get("OidOutputFunctionCall")
    if oinc and oinc_b:
        rep.emit(["`OidOutputFunctionCall` (looks up the output function, then calls it),"
                  " inclusive per statement: %s for the `snowflake` column, %s for `bigint`."
                  % (fmt_num(oinc / k_tx, 0), fmt_num(oinc_b / k_tx, 0)), ""])


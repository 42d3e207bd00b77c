"""snowbench: the benchmark harness of the snowflake extension.

bench/bench.py is the entry point; bench/README.md describes the sections,
the options and how to read the report.  Python 3 standard library only.

    server.py      the throwaway server and the psql sessions
    report.py      statistics, number formats, markdown tables, the report
    methods.py     the generators compared, their helper SQL, shared queries
    harness.py     the Bench object every section works with: server,
                   session, pgbench runs, server log
    machine.py     the head of the report: machine, server, build
    bulk.py, pgbench.py, insert.py, decode.py, timerange.py, scaling.py,
    hwm.py, profile.py, scaling_table.py
                   one module per section, each with a run(bench) function
    perf.py, callgrind.py
                   the profilers behind profile.py
    chart.py       the data file and gnuplot chart of the scaling table
    cli.py         options, signals, clean-up
"""

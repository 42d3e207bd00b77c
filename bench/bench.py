#!/usr/bin/env python3
"""bench/bench.py: the entry point of the benchmark harness, which lives in
bench/snowbench/ (see its __init__.py, and bench/README.md for the options
and the sections).  Run it through bench/run.sh, or directly as an
unprivileged user once the extension is installed:

    python3 bench/bench.py --quick --out-dir=/tmp/reports
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from snowbench.cli import main  # noqa: E402  (after the path is set)

if __name__ == "__main__":
    sys.exit(main())

"""Search benchmark: ``python benchmarks/search_bench.py [--quick] [--json]``.

A thin wrapper around :func:`grognard.bench.search_bench.main`.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    from grognard.bench.search_bench import main
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from grognard.bench.search_bench import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Engine benchmark: ``python benchmarks/engine_bench.py [--quick] [--json] [--baseline C]``.

A thin wrapper around :func:`grognard.bench.engine_bench.main` (also ``grognard bench --engine``).
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    from grognard.bench.engine_bench import main
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from grognard.bench.engine_bench import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

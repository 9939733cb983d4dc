"""``python -m grognard.server``: the same as ``grognard serve``.

Rule-system plugins named in ``GROGNARD_PLUGINS`` (comma separated modules) are
imported first, as the ``grognard`` command does.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from grognard.server.cli import configure, run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m grognard.server", description="serve grognard games to web browsers"
    )
    configure(p)
    a = p.parse_args(argv)
    for mod in filter(None, (m.strip() for m in os.environ.get("GROGNARD_PLUGINS", "").split(","))):
        importlib.import_module(mod)
    return run(a)


if __name__ == "__main__":
    sys.exit(main())

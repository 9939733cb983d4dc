"""pytest configuration for the search tests."""

from __future__ import annotations

import sys
from pathlib import Path

# The test modules import their helpers (``search_helpers``) from this folder, whatever
# pytest's import mode.
sys.path.insert(0, str(Path(__file__).resolve().parent))

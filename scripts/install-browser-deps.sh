#!/usr/bin/env bash
# Install what the browser tests need: Debian's Chromium and the Python Playwright driver.
# Playwright's own browser download is skipped: the tests launch /usr/bin/chromium.
# Run as root (or with sudo). PYTHON names the interpreter of the project's environment
# (default: python3), e.g. PYTHON=.venv/bin/python bash scripts/install-browser-deps.sh
set -euo pipefail

if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium
fi

PY="${PYTHON:-python3}"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$PY" -m pip install --quiet "playwright>=1.45"

chromium --version
"$PY" -c "from importlib.metadata import version; print('playwright', version('playwright'))"

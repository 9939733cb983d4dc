#!/usr/bin/env bash
# Install the system package the browser tests need: Debian's Chromium at /usr/bin/chromium.
# Playwright itself comes with the test extras (pip install -e ".[test]") and never downloads a
# browser of its own: the tests launch /usr/bin/chromium. Needs root (CI runs as root).
set -euo pipefail

if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium
fi
chromium --version

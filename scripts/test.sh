#!/usr/bin/env bash
# Set up everything the tests need on a fresh Debian machine, then run them.
# Used as-is by CI (.ci/run). Safe to re-run: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

# Headless Chromium for the browser tests (Debian's package; Playwright's own download is not used).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: run 'sudo apt-get install chromium' (browser tests need it)" >&2
    exit 1
  fi
fi

# pandoc writes the BibTeX files the import tests read (a real tool's output, not ours).
if ! command -v pandoc >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pandoc >/dev/null
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# A venv made before the switch to pymupdf-lite has pymupdf too: both install the same `pymupdf`
# package folder, so remove them all and let the install below bring back pymupdf-lite alone.
if .venv/bin/python -m pip show -q pymupdf >/dev/null 2>&1; then
  .venv/bin/python -m pip uninstall -q -y pymupdf pymupdf-layout pymupdf4llm pymupdf-lite >/dev/null 2>&1 || true
fi
.venv/bin/python -m pip install -q -e '.[test]'

# pytest exits 5 when it collects nothing: with `set -e` that fails the run, as it should.
exec .venv/bin/python -m pytest -q "$@"

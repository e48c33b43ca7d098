#!/usr/bin/env bash
# The whole test suite: sets everything up, lints and checks the formatting (ruff), then runs pytest.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
exec .venv/bin/pytest -q "$@"

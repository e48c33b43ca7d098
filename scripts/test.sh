#!/usr/bin/env bash
# The whole test suite: sets everything up, lints (ruff), then runs pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
exec .venv/bin/pytest -q "$@"

#!/usr/bin/env bash
# The main job on the built-in defaults: sets everything up, then runs it. Extra arguments go to the command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/harness-evo evolve --harness harnesses/bash-agent --tasks tasks/core "$@"

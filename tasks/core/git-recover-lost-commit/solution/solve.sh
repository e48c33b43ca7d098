#!/bin/bash
set -euo pipefail
cd /app/ledger
lost=$(git log --walk-reflogs --grep='Add monthly billing report' --format=%H -n 1)
git cherry-pick "$lost"
git log --oneline

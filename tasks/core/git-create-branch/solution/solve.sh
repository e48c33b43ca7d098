#!/bin/bash
set -euo pipefail
cd /app/webshop
git checkout -q -b feature/search main
git branch -v
git status --short --branch

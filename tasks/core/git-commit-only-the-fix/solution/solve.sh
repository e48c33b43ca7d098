#!/bin/bash
set -euo pipefail
cd /app/calc
git config --global user.name "Calc Maintainer"
git config --global user.email "maintainer@example.com"
git add calc.py
git commit -q -m "Fix division by zero"
git status --short

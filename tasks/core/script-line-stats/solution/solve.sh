#!/bin/bash
cat > /app/linestats.py <<'PY'
"""Prints the number of lines and words of a text file and the length of its longest line."""

import sys
from pathlib import Path

lines = Path(sys.argv[1]).read_text().splitlines()
print(f"lines: {len(lines)}")
print(f"words: {sum(len(line.split()) for line in lines)}")
print(f"longest: {max((len(line) for line in lines), default=0)}")
PY

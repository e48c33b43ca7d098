#!/bin/bash
# Reward 1 when /app/counts.txt lists every table of library.db with its row count, sorted by name, else 0.
set -u
expected=$'authors 37\nbooks 412\nbranch_hours 12\nloans 1093\nmembers 158'
found=$(sed -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//' /app/counts.txt 2>/dev/null | grep -v '^$')
if [ "$found" = "$expected" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  printf 'counts.txt is:\n%s\n' "${found:0:400}" >&2
  echo 0 > /logs/verifier/reward.txt
fi

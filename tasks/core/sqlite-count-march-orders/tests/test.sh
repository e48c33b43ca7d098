#!/bin/bash
# Reward 1 when /app/answer.txt holds the number of orders placed in March 2024, else 0.
set -u
answer=$(tr -d '[:space:]' < /app/answer.txt 2>/dev/null)
if [ "$answer" = "48" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo "answer '${answer:0:80}' is not the number of orders placed in March 2024" >&2
  echo 0 > /logs/verifier/reward.txt
fi

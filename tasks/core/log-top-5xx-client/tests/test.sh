#!/bin/bash
# Reward 1 when /app/answer.txt holds the client with the most 5xx responses, else 0.
set -u
answer=$(tr -d '[:space:]' < /app/answer.txt 2>/dev/null)
if [ "$answer" = "10.0.7.23" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo "answer '${answer:0:80}' is not the client with the most 5xx responses" >&2
  echo 0 > /logs/verifier/reward.txt
fi

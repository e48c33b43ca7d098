#!/bin/bash
# Reward 1 when /app/answer.txt holds the commit that set DEBUG = True in config/settings.py, else 0.
set -u
answer=$(tr -d '[:space:]' < /app/answer.txt 2>/dev/null)
if [ "$answer" = "387c047069853b699f065cecd191c59e893775ed" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo "answer '${answer:0:80}' is not the commit that set DEBUG = True in config/settings.py" >&2
  echo 0 > /logs/verifier/reward.txt
fi

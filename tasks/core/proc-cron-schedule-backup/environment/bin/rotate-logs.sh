#!/bin/bash
# Keeps the last three copies of each log in /app/logs.
for log in /app/logs/*.log; do
  [ -f "$log" ] || continue
  [ -f "$log.2" ] && mv "$log.2" "$log.3"
  [ -f "$log.1" ] && mv "$log.1" "$log.2"
  mv "$log" "$log.1"
done

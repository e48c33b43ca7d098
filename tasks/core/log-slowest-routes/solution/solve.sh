#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import json
from collections import defaultdict

durations = defaultdict(list)
for line in open("/app/logs/requests.jsonl"):
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        continue
    ms = record["duration_ms"] if "duration_ms" in record else record["duration_s"] * 1000
    durations[record["route"]].append(ms)
averages = sorted(((sum(v) / len(v), route) for route, v in durations.items()), reverse=True)
with open("/app/slowest.csv", "w") as f:
    f.write("route,avg_ms\n")
    for average, route in averages[:3]:
        f.write(f"{route},{average:.1f}\n")
PY
cat /app/slowest.csv

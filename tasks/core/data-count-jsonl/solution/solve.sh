#!/bin/bash
python3 - <<'PY' > /app/answer.txt
import json

with open("/app/events.jsonl") as events:
    rows = [json.loads(line) for line in events if line.strip()]
print(sum(row.get("level") == "error" and row.get("service") == "auth" for row in rows))
PY

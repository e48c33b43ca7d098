#!/bin/bash
python3 - <<'PY'
import csv
import json

with open("/app/users.json") as source:
    users = json.load(source)
with open("/app/users.csv", "w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "name", "email", "city"])
    for user in users:
        writer.writerow([user["id"], user["name"], user.get("email") or "", user.get("address", {}).get("city", "")])
PY

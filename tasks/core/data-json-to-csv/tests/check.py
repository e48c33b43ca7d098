"""Reward 1 when /app/users.csv parses back into id, name, email and city of every user of the unchanged users.json, in order."""

import csv
import hashlib
import json
from pathlib import Path

USERS_SHA256 = "9555cceace935dc214019ef41620b9e8ee803ac64b282403d9506ee6e583e11d"

source, target = Path("/app/users.json"), Path("/app/users.csv")
if not source.is_file() or hashlib.sha256(source.read_bytes()).hexdigest() != USERS_SHA256 or not target.is_file():
    print(0)
else:
    users = json.loads(source.read_text())
    expected = [["id", "name", "email", "city"]] + [
        [str(user["id"]), user["name"], user.get("email") or "", user.get("address", {}).get("city", "")] for user in users
    ]
    with target.open(newline="") as table:
        rows = [row for row in csv.reader(table) if row]
    print(1 if rows == expected else 0)

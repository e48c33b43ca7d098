"""Prints a reproducible JSON export whose user records sit under a "users" key, not at the top level."""

import json
import random

rng = random.Random(12)
FIRST = ["anna", "ben", "carla", "dev", "elif", "farid", "greta", "hugo", "ines", "jamal", "kofi", "lena", "marco", "nadia"]
LAST = ["berg", "costa", "diaz", "eriksen", "fischer", "gomez", "haddad", "ito", "jensen", "khan", "lopez", "moreau"]
DOMAINS = ["example.com", "mail.example.org", "corp.example.net"]
users = []
for number, first in enumerate(rng.sample(FIRST, len(FIRST)), start=101):
    last = rng.choice(LAST)
    users.append({
        "id": number,
        "name": f"{first.title()} {last.title()}",
        "email": f"{first}.{last}@{rng.choice(DOMAINS)}",
        "role": rng.choice(["admin", "editor", "viewer", "viewer"]),
        "active": rng.random() < 0.8,
    })
print(json.dumps({"exported_at": "2024-11-04T09:30:00Z", "count": len(users), "users": users}, indent=2))

"""Prints a JSON list of users; some lack an email (or have null) or an address, and some names contain commas."""

import json
import random

FIRST = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Ken", "Margaret", "Dennis", "Frances", "Linus", "Radia", "Guido"]
LAST = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Thompson", "Hamilton", "Ritchie", "Allen", "Torvalds"]
CITIES = ["London", "New York", "Zurich", "Boston", "Austin", "Portland", "Helsinki", "Amsterdam"]

rng = random.Random(29)
users = []
for number in range(1, 31):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    user = {"id": 100 + number, "name": f"{last}, {first}" if number % 7 == 3 else f"{first} {last}", "active": rng.random() < 0.8}
    if rng.random() < 0.8:
        user["email"] = f"{first}.{last}{number}@example.com".lower()
    elif number % 2:
        user["email"] = None
    if rng.random() < 0.85:
        user["address"] = {"city": rng.choice(CITIES), "zip": f"{rng.randint(10000, 99999)}"}
    users.append(user)
print(json.dumps(users, indent=2))

"""Prints a reproducible server log in time order; the first ERROR entry comes after INFO/WARN lines that mention errors."""

import random
from datetime import datetime, timedelta

rng = random.Random(88)
QUIET = [
    ("INFO", "http: listening on :8443"),
    ("INFO", "payments: {n} charges captured"),
    ("INFO", "http: GET /api/orders 200 in {n}ms"),
    ("INFO", "stats: 0 errors in the last minute"),
    ("WARN", "payments: provider answered slowly ({n}ms)"),
    ("WARN", "http: client error 400 on /api/cart"),
]
ERRORS = [
    "payments: card processor unreachable",
    "db: deadlock detected, transaction rolled back",
    "http: 500 on /api/checkout",
]
moment = datetime(2024, 10, 3, 6, 0, 0)
print(f"[{moment:%Y-%m-%d %H:%M:%S}] INFO  server: starting, version 3.8.1")
for i in range(300):
    moment += timedelta(seconds=rng.randint(3, 240))
    if i < 47 or rng.random() > 0.08:
        level, message = rng.choice(QUIET)
    else:
        level, message = "ERROR", rng.choice(ERRORS)
    print(f"[{moment:%Y-%m-%d %H:%M:%S}] {level:<5} {message.format(n=rng.randint(2, 900))}")

"""Prints a reproducible application log; some INFO and WARN messages mention "error" in lower case."""

import random
from datetime import datetime, timedelta

rng = random.Random(1307)
MESSAGES = {
    "DEBUG": ["[api] GET /health 200", "[cache] hit ratio 0.93", "[worker] polling queue"],
    "INFO": ["[worker] processed {n} jobs", "[api] request served in {n} ms", "[api] retrying after a timeout error",
             "[report] error rate is {n} per mille, within budget", "[auth] user {n} logged in"],
    "WARN": ["[db] slow query took {n} ms", "[api] client error 404 on /old-page", "[disk] {n}% used"],
    "ERROR": ["[db] connection refused", "[worker] job {n} failed: ValueError", "[mailer] could not reach smtp relay",
              "[api] unhandled exception in /checkout"],
}
LEVELS, WEIGHTS = ["DEBUG", "INFO", "WARN", "ERROR"], [25, 50, 15, 10]
moment = datetime(2024, 10, 2, 8, 0, 0)
for _ in range(400):
    moment += timedelta(seconds=rng.randint(1, 90))
    level = rng.choices(LEVELS, WEIGHTS)[0]
    message = rng.choice(MESSAGES[level]).format(n=rng.randint(1, 999))
    print(f"{moment:%Y-%m-%d %H:%M:%S} {level:<5} {message}")

"""Prints JSON-lines events written by different producers: keys in varying order, compact or spaced separators."""

import json
import random

SERVICES = ["auth", "auth-proxy", "billing", "search", "auth", "api"]
LEVELS = ["info", "info", "info", "warn", "error", "debug"]
MESSAGES = ["login ok", "token refreshed", "error budget at 80%", "upstream error, retrying", "timeout", "invalid password",
            "cache miss", "rate limited"]

rng = random.Random(31)
for second in range(420):
    event = {"ts": f"2024-06-01T12:{second // 60:02d}:{second % 60:02d}Z", "service": rng.choice(SERVICES),
             "level": rng.choice(LEVELS), "msg": rng.choice(MESSAGES)}
    keys = list(event)
    rng.shuffle(keys)
    separators = rng.choice([(",", ":"), (", ", ": ")])
    print(json.dumps({key: event[key] for key in keys}, separators=separators))

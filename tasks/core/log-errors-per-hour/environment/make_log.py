"""Writes a reproducible application log across midnight: ERROR entries followed by multi-line tracebacks,
and INFO/WARNING entries whose messages mention errors."""

import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

rng = random.Random(1409)
THREADS = ["worker-1", "worker-2", "worker-3", "api", "scheduler"]
ORDINARY = [
    ("INFO", "api.http", "GET /api/orders/{n} 200 in {ms}ms"),
    ("INFO", "worker.jobs", "job {n} finished"),
    ("DEBUG", "db.pool", "connection {n} returned to pool"),
    ("WARNING", "payment.gateway", "slow answer from gateway ({ms}ms)"),
    ("INFO", "api.http", "retrying after ERROR response from upstream (attempt {k})"),
    ("WARNING", "worker.jobs", "job {n} had 1 error, will retry"),
]
ERRORS = [
    ("payment.gateway", "charge failed for order {n}", "ConnectionError: gateway timed out"),
    ("worker.jobs", "job {n} crashed", "ValueError: ERROR: bad row {k} in input"),
    ("db.pool", "could not get a connection", "OperationalError: too many connections"),
]

lines = []
now = datetime(2024, 9, 14, 21, 40, 0)
end = datetime(2024, 9, 15, 3, 10, 0)
while now < end:
    now += timedelta(seconds=rng.randint(5, 95), milliseconds=rng.randint(0, 999))
    stamp = now.strftime("%Y-%m-%d %H:%M:%S,") + f"{now.microsecond // 1000:03d}"
    values = {"n": rng.randint(1000, 9999), "ms": rng.randint(20, 4000), "k": rng.randint(1, 5)}
    hour_weight = {21: 0.1, 22: 0.12, 23: 0.03, 0: 0.2, 1: 0.0, 2: 0.06, 3: 0.1}[now.hour]
    if rng.random() < hour_weight:
        logger, message, exception = rng.choice(ERRORS)
        lines.append(f"{stamp} ERROR [{rng.choice(THREADS)}] {logger}: {message.format(**values)}")
        if rng.random() < 0.7:
            lines += [
                "Traceback (most recent call last):",
                f'  File "/srv/app/{logger.replace(".", "/")}.py", line {values["k"] * 17}, in run',
                "    result = step(payload)",
                exception.format(**values),
            ]
    else:
        level, logger, message = rng.choice(ORDINARY)
        lines.append(f"{stamp} {level} [{rng.choice(THREADS)}] {logger}: {message.format(**values)}")
out = Path(sys.argv[1])
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text("\n".join(lines) + "\n")

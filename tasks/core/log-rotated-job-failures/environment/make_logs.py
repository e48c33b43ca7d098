"""Writes reproducible, rotated scheduler logs: sync.log, sync.log.1 and sync.log.2.gz .. sync.log.5.gz.
Besides nightly-sync, the jobs nightly-sync-eu and hourly-cleanup run and fail too."""

import gzip
import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

rng = random.Random(512)
JOBS = {"nightly-sync": 0.18, "nightly-sync-eu": 0.3, "hourly-cleanup": 0.1}
REASONS = ["timeout", "connection refused", "disk full", "exit code 2"]
folder = Path(sys.argv[1])
folder.mkdir(parents=True, exist_ok=True)

day = datetime(2024, 10, 1)
run = 800
for index in range(5, -1, -1):
    lines = []
    for _ in range(6):
        for job, failure_rate in JOBS.items():
            for hour in ([2] if job.startswith("nightly") else range(0, 24, 3)):
                run += 1
                start = day + timedelta(hours=hour, minutes=rng.randint(0, 4), seconds=rng.randint(0, 59))
                lines.append(f"{start:%Y-%m-%dT%H:%M:%SZ} job={job} run={run} status=started")
                finish = start + timedelta(seconds=rng.randint(30, 900))
                if rng.random() < failure_rate:
                    lines.append(f"{finish:%Y-%m-%dT%H:%M:%SZ} job={job} run={run} status=failed reason=\"{rng.choice(REASONS)}\"")
                else:
                    lines.append(f"{finish:%Y-%m-%dT%H:%M:%SZ} job={job} run={run} status=ok")
        day += timedelta(days=1)
    lines.sort()
    text = "\n".join(lines) + "\n"
    name = "sync.log" if index == 0 else f"sync.log.{index}"
    if index >= 2:
        (folder / f"{name}.gz").write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        (folder / name).write_text(text)

"""Runs /app/run.sh four ways from / and prints the share of runs that behave as specified."""

import json
import os
import subprocess
import sys

BASE = {key: value for key, value in os.environ.items() if key not in ("LOG_LEVEL", "DATA_DIR")}
CASES = [
    # (extra environment, arguments, expected log level, expected exit status)
    ({}, ["jan.csv", "feb 2024.csv"], "info", 0),
    ({"LOG_LEVEL": "debug"}, ["jan.csv"], "debug", 0),
    ({"DATA_DIR": "/tmp", "LOG_LEVEL": "error"}, ["feb 2024.csv", "jan.csv"], "error", 0),
    ({}, ["jan.csv", "missing.csv"], "info", 4),
]


def behaves(extra: dict, args: list[str], level: str, status: int) -> bool:
    try:
        run = subprocess.run(["/app/run.sh", *args], env=BASE | extra, cwd="/", capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"/app/run.sh {args} could not run: {e}", file=sys.stderr)
        return False
    try:
        seen = json.loads(run.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        print(f"/app/run.sh {args} did not run app.py: {run.stdout[-200:]!r} {run.stderr[-200:]!r}", file=sys.stderr)
        return False
    wanted = {"log_level": level, "data_dir": "/app/data", "files": args, "missing": [name for name in args if name == "missing.csv"]}
    if seen != wanted or run.returncode != status:
        print(f"with {extra} and {args}: app.py saw {seen}, exit {run.returncode}; expected {wanted}, exit {status}", file=sys.stderr)
        return False
    return True


print(sum(behaves(*case) for case in CASES) / len(CASES))

"""Prints 1 when compose.yaml still parses, the worker has LOG_LEVEL=debug and QUEUE_NAME=emails added to its
environment, and nothing else changed, else 0."""

import sys
from pathlib import Path

import yaml

WORKER_ENV = {"DATABASE_URL": "postgres://app@db/newsletter", "REDIS_URL": "redis://redis:6379/0", "LOG_LEVEL": "debug", "QUEUE_NAME": "emails"}


def as_mapping(environment) -> dict:
    """Compose accepts a list of KEY=value strings or a mapping."""
    if isinstance(environment, dict):
        return {key: str(value) for key, value in environment.items()}
    if isinstance(environment, list) and all(isinstance(item, str) and "=" in item for item in environment):
        pairs = [item.split("=", 1) for item in environment]
        if len({key for key, _ in pairs}) == len(pairs):
            return dict(pairs)
    return {"<unreadable>": repr(environment)}


def main() -> int:
    expected = yaml.safe_load(Path("/tests/compose.original.yaml").read_text())
    try:
        found = yaml.safe_load(Path("/app/deploy/compose.yaml").read_text())
        worker = found["services"]["worker"]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as e:
        print(f"/app/deploy/compose.yaml is unreadable or lost the worker service: {e}", file=sys.stderr)
        return 0
    environment = as_mapping(worker.pop("environment", None))
    del expected["services"]["worker"]["environment"]
    if environment != WORKER_ENV:
        print(f"the worker's environment is {environment}", file=sys.stderr)
        return 0
    if found != expected:
        print("something besides the worker's environment changed", file=sys.stderr)
        return 0
    return 1


print(main())

"""Reward 1 when /app/config.json holds the same data as the unchanged config.yaml, with dates as ISO strings."""

import datetime
import hashlib
import json
from pathlib import Path

import yaml

YAML_SHA256 = "7bcc005bcabfb245e1a6a1d8dbde0f563f3481f0121ed3a763d3d4ceab3865d0"


def with_iso_dates(value):
    if isinstance(value, dict):
        return {key: with_iso_dates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [with_iso_dates(item) for item in value]
    return value.isoformat() if isinstance(value, datetime.date) else value


source, target = Path("/app/config.yaml"), Path("/app/config.json")
if not source.is_file() or hashlib.sha256(source.read_bytes()).hexdigest() != YAML_SHA256 or not target.is_file():
    print(0)
else:
    expected = with_iso_dates(yaml.safe_load(source.read_text()))
    try:
        converted = json.loads(target.read_text())
    except json.JSONDecodeError:
        converted = None
    # 1 == True in Python, so compare the JSON texts of both sides too: a boolean must stay a boolean
    same = converted == expected and json.dumps(converted, sort_keys=True) == json.dumps(expected, sort_keys=True)
    print(1 if same else 0)

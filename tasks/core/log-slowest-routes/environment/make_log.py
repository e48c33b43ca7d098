"""Writes a reproducible JSON-lines request log. Requests served by the old version 1.8 record
`duration_s` (seconds) instead of `duration_ms`; the reports route was slow only in that version.
The last line was cut off when the log was copied."""

import json
import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

rng = random.Random(1102)
# route -> (method, mean ms in version 1.8, mean ms in version 1.9, share of requests served by 1.8)
ROUTES = {
    "/api/search": ("GET", 430, 410, 0.3),
    "/api/reports/{id}": ("GET", 1500, 210, 0.7),
    "/api/orders/{id}": ("GET", 190, 170, 0.3),
    "/api/checkout": ("POST", 640, 660, 0.3),
    "/api/stock": ("GET", 95, 85, 0.3),
    "/login": ("POST", 300, 310, 0.3),
    "/api/export": ("GET", 520, 480, 0.5),
}

lines = []
now = datetime(2024, 11, 2, 10, 0, 0)
for _ in range(1500):
    now += timedelta(milliseconds=rng.randint(50, 9000))
    route = rng.choice(list(ROUTES))
    method, old_ms, new_ms, old_share = ROUTES[route]
    path = route.replace("{id}", str(rng.randint(100, 9999)))
    record = {"ts": now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z", "method": method, "route": route, "path": path}
    record["status"] = rng.choice([200] * 20 + [201, 400, 404, 500])
    if rng.random() < old_share:
        record["version"] = "1.8"
        record["duration_s"] = round(max(5, rng.gauss(old_ms, old_ms / 4)) / 1000, 3)
    else:
        record["version"] = "1.9"
        record["duration_ms"] = int(max(5, rng.gauss(new_ms, new_ms / 4)))
    lines.append(json.dumps(record))
lines[-1] = lines[-1][: len(lines[-1]) // 2]
out = Path(sys.argv[1])
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text("\n".join(lines) + "\n")

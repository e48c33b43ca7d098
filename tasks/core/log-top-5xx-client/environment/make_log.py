"""Writes a reproducible access log: the busiest client is not the one that got the most 5xx answers,
and one client fetches /products/500 (200 OK, 500 bytes) a lot."""

import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

rng = random.Random(20240914)
PATHS = ["/", "/login", "/cart", "/products", "/products/17", "/products/204", "/api/orders", "/api/stock", "/static/app.js"]
AGENTS = ["Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "curl/8.5.0", "Mozilla/5.0 (Macintosh) Safari/605.1.15"]
# ip -> (requests, of which 5xx)
CLIENTS = {"10.0.3.4": (400, 9), "10.0.7.23": (150, 14), "192.168.1.50": (220, 6), "172.16.0.9": (90, 11)}
for n in range(20):
    CLIENTS[f"10.0.{rng.randint(10, 250)}.{rng.randint(2, 250)}"] = (rng.randint(20, 60), rng.randint(0, 5))

requests = []
for ip, (total, failures) in CLIENTS.items():
    for i in range(total):
        if i < failures:
            status, path = rng.choice([500, 502, 503, 504]), rng.choice(PATHS)
        elif ip == "192.168.1.50":
            status, path = 200, "/products/500"
        else:
            status, path = rng.choice([200] * 12 + [301, 304, 404, 403]), rng.choice(PATHS)
        requests.append((ip, status, path))
rng.shuffle(requests)

start = datetime(2024, 9, 14, 6, 0, 0)
lines = []
for n, (ip, status, path) in enumerate(requests):
    when = (start + timedelta(seconds=n * 7 + rng.randint(0, 6))).strftime("%d/%b/%Y:%H:%M:%S +0000")
    size = 500 if path == "/products/500" else rng.choice([0, 312, 1534, 5020, 18211, 503])
    method = "POST" if path in ("/login", "/api/orders") and rng.random() < 0.5 else "GET"
    lines.append(f'{ip} - - [{when}] "{method} {path} HTTP/1.1" {status} {size} "-" "{rng.choice(AGENTS)}"')
out = Path(sys.argv[1])
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text("\n".join(lines) + "\n")

"""Prints 0.5 when server.py answers on port 8080 in production mode, plus 0.5 when its log is in /app/server.log."""

import json
import sys
import urllib.request
from pathlib import Path


def status() -> dict:
    with urllib.request.urlopen("http://127.0.0.1:8080/status", timeout=5) as response:
        return json.loads(response.read())


def main() -> float:
    try:
        answer = status()
    except Exception as e:
        print(f"nothing answers on port 8080: {e}", file=sys.stderr)
        return 0
    proc = Path(f"/proc/{answer.get('pid')}/cmdline")
    cmdline = proc.read_bytes().replace(b"\0", b" ").decode(errors="replace") if proc.exists() else ""
    if "server.py" not in cmdline:
        print(f"the process on port 8080 is not /app/server.py ({cmdline!r})", file=sys.stderr)
        return 0
    if answer.get("mode") != "production":
        print(f"the server runs in {answer.get('mode')!r} mode", file=sys.stderr)
        return 0
    log = Path("/app/server.log")
    text = log.read_text(errors="replace") if log.is_file() else ""
    if "listening on port 8080 in production mode" in text and "GET /status" in text:
        return 1
    print("/app/server.log lacks the server's startup line or the request just made", file=sys.stderr)
    return 0.5


print(main())

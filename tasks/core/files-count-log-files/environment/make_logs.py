"""Builds a tree of log files; most .log files sit in subfolders, next to rotated .log.1 / .log.gz files that don't count."""

import sys
from pathlib import Path

FILES = [
    "app.log", "worker.log", "README.txt", "app.log.1",
    "nginx/access.log", "nginx/error.log", "nginx/access.log.1", "nginx/access.log.2.gz",
    "api/requests.log", "api/errors.log", "api/debug.log", "api/settings.conf",
    "api/old/requests-2024-09.log", "api/old/requests-2024-08.log", "api/old/requests-2024-07.log.gz",
    "cron/backup.log", "cron/cleanup.log", "cron/crontab.txt",
    "db/postgres.log", "db/slow-queries.log", "db/postgres.log.1", "db/notes.md",
    "mail/outgoing.log", "mail/logrotate.status",
]

root = Path(sys.argv[1])
for index, name in enumerate(FILES):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"2024-10-{1 + line % 28:02d} entry {line} of {name}\n" for line in range(index + 3)))

"""Prints 0.5 when a cron entry runs backup.sh daily at 02:30 and the old jobs are kept,
plus 0.5 when that entry's command appends both output streams to /app/backup.log."""

import subprocess
import sys
from pathlib import Path

KEPT = ["*/15 * * * * /app/bin/rotate-logs.sh >/dev/null 2>&1", "0 6 * * 1 /app/bin/weekly-report.sh"]
LOG = Path("/app/backup.log")


def entries() -> list[tuple[list[str], str]]:
    """(schedule fields, command) of every job run as root: the root crontab, /etc/crontab and /etc/cron.d."""
    found = []
    listing = subprocess.run(["crontab", "-l"], capture_output=True, text=True).stdout
    tables = [(listing, False)] + [(path.read_text(errors="replace"), True) for path in [Path("/etc/crontab"), *Path("/etc/cron.d").glob("*")] if path.is_file()]
    for text, has_user in tables:
        for line in text.splitlines():
            fields = line.split(None, 6 if has_user else 5)
            if not line.strip() or line.lstrip().startswith("#") or "=" in fields[0] or len(fields) < (7 if has_user else 6):
                continue
            if has_user and fields[5] != "root":
                continue
            found.append((fields[:5], fields[-1]))
    return found


def at_half_past_two(schedule: list[str]) -> bool:
    minute, hour, *rest = schedule
    return minute.isdigit() and hour.isdigit() and (int(minute), int(hour)) == (30, 2) and rest == ["*", "*", "*"]


def appends_both_streams(command: str) -> bool:
    before = LOG.read_text(errors="replace") if LOG.is_file() else ""
    LOG.write_text("earlier run\n")
    try:
        for _ in range(2):
            subprocess.run(["/bin/sh", "-c", command], cwd="/root", stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
        text = LOG.read_text(errors="replace")
    finally:
        LOG.write_text(before)
    return text.startswith("earlier run\n") and text.count("backup finished") == 2 and text.count("warning: backups older") == 2


def main() -> float:
    jobs = entries()
    lines = subprocess.run(["crontab", "-l"], capture_output=True, text=True).stdout.splitlines()
    lost = [job for job in KEPT if job not in lines]
    backups = [command for schedule, command in jobs if "/app/bin/backup.sh" in command and at_half_past_two(schedule)]
    if lost or not backups:
        print(f"lost jobs: {lost}" if lost else "no cron entry runs /app/bin/backup.sh every day at 02:30", file=sys.stderr)
        return 0
    if not any(appends_both_streams(command) for command in backups):
        print(f"running {backups[0]!r} does not append stdout and stderr to /app/backup.log", file=sys.stderr)
        return 0.5
    return 1


print(main())

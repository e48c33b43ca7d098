"""The share of the verifier's folders where rotate.sh keeps exactly the KEEP backups with the latest dates in their names."""

import os
import random
import subprocess
import tempfile
from pathlib import Path

OTHERS = ["notes.txt", "backup-notes.txt", "backup-20240101.tar.gz.part", "backup-latest.tar.gz"]
# (dates of the backups, KEEP, other files in the folder)
CASES = [
    (["20230105", "20230412", "20221231", "20230301", "20231120", "20230704"], 3, []),
    (["20240101", "20240102", "20240103", "20240104"], 10, ["notes.txt"]),
    (["20240930", "20241001", "20240115", "20241231", "20240601"], 2, OTHERS),
]


def rotates(dates: list[str], keep: int, others: list[str], folder: Path) -> bool:
    rng = random.Random(len(dates))
    for name in [f"backup-{date}.tar.gz" for date in dates] + others:
        (folder / name).write_text(name)
        # modification times unrelated to the dates in the names
        stamp = 1_700_000_000 + rng.randrange(10_000_000)
        os.utime(folder / name, (stamp, stamp))
    try:
        result = subprocess.run(["/app/rotate.sh", str(folder), str(keep)], capture_output=True, timeout=20)
    except (subprocess.TimeoutExpired, OSError):
        return False
    kept = [f"backup-{date}.tar.gz" for date in sorted(dates, reverse=True)[:keep]]
    found = {path.name: path.read_text() for path in folder.iterdir()}
    return result.returncode == 0 and found == {name: name for name in kept + others}


passed = 0
for case in CASES:
    with tempfile.TemporaryDirectory() as scratch:
        passed += rotates(*case, Path(scratch))
print(round(passed / len(CASES), 3))

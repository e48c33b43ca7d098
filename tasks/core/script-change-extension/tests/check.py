"""The share of the verifier's folders that `/app/chext.sh DIR OLD NEW` renames exactly right."""

import subprocess
import tempfile
from pathlib import Path

# (OLD, NEW, files before, files after); "sub/" is a subdirectory that must be left alone
CASES = [
    ("txt", "md", ["a.txt", "b.txt", "c.csv", "sub/d.txt"], ["a.md", "b.md", "c.csv", "sub/d.txt"]),
    ("jpeg", "jpg", ["my photo.jpeg", "beach day 2.jpeg", "notes.txt"], ["my photo.jpg", "beach day 2.jpg", "notes.txt"]),
    ("log", "old", ["app.log", "app.log.1", "catalog.txt", "x.log.log"], ["app.old", "app.log.1", "catalog.txt", "x.log.old"]),
]


def renames(old: str, new: str, before: list[str], after: list[str], folder: Path) -> bool:
    for number, name in enumerate(before):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"file {number}\n")
    result = subprocess.run(["/app/chext.sh", str(folder), old, new], capture_output=True, timeout=30)
    found = {str(path.relative_to(folder)): path.read_text() for path in folder.rglob("*") if path.is_file()}
    return result.returncode == 0 and found == {name: f"file {number}\n" for number, name in enumerate(after)}


passed = 0
for case in CASES:
    with tempfile.TemporaryDirectory() as scratch:
        passed += Path("/app/chext.sh").is_file() and renames(*case, Path(scratch))
print(round(passed / len(CASES), 3))

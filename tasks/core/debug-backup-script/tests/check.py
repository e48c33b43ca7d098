"""A third of the reward for each case the script handles: spaces in the directory, in file names, or both."""

import shutil
import subprocess
from pathlib import Path

# (source folder, destination folder, files in the source); the original script fails every case
CASES = [
    ("/tmp/check/my documents", "/tmp/check/backup one", ["a.txt", "b.txt", "c.md"]),
    ("/tmp/check/docs", "/tmp/check/out", ["plain.txt", "with space.txt", "two  spaces.txt", "other file.log"]),
    ("/tmp/check/q3 reports", "/tmp/check/saved copies/q3", ["final report.txt", "x.txt", "notes"]),
]


def handles(source: str, destination: str, names: list[str]) -> bool:
    shutil.rmtree("/tmp/check", ignore_errors=True)
    Path(source).mkdir(parents=True)
    for name in names:
        (Path(source) / name).write_text(f"contents of {name}\n")
    subprocess.run(["bash", "/app/backup.sh", source, destination], capture_output=True, timeout=30)
    expected = {f"{name}.bak": f"contents of {name}\n" for name in names if name.endswith(".txt")}
    folder = Path(destination)
    found = {path.name: path.read_text() for path in folder.iterdir() if path.is_file()} if folder.is_dir() else {}
    return found == expected and all((Path(source) / name).is_file() for name in names)


passed = sum(handles(*case) for case in CASES) if Path("/app/backup.sh").is_file() else 0
print(round(passed / len(CASES), 3))

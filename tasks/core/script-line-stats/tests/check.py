"""The share of the verifier's files (an ordinary one, one without a final newline, an empty one, the sample) that the script measures right."""

import subprocess
import tempfile
from pathlib import Path

CASES = [
    ("alpha beta\ngamma\n\ndelta epsilon zeta eta\n", "lines: 4\nwords: 7\nlongest: 22"),
    ("no newline at the end\n  indented line here", "lines: 2\nwords: 8\nlongest: 21"),
    ("", "lines: 0\nwords: 0\nlongest: 0"),
    (None, "lines: 4\nwords: 10\nlongest: 25"),
]


def measures(text: str | None, expected: str, folder: Path) -> bool:
    path = Path("/app/sample.txt")
    if text is not None:
        path = folder / f"case{len(text)}.txt"
        path.write_text(text)
    result = subprocess.run(["python3", "/app/linestats.py", str(path)], capture_output=True, text=True, timeout=30)
    return result.returncode == 0 and result.stdout.strip() == expected


with tempfile.TemporaryDirectory() as scratch:
    passed = sum(measures(text, expected, Path(scratch)) for text, expected in CASES) if Path("/app/linestats.py").is_file() else 0
print(round(passed / len(CASES), 3))

"""Prints 1 when `bash /app/wordcount.sh FILE` prints only the word count of each of the verifier's files, else 0."""

import subprocess
import sys
import tempfile
from pathlib import Path

TEXTS = [
    "one two three\nfour five\n",
    "Shopping list\neggs\nmilk\nbread and butter\ncoffee beans\ntwo lemons\n",
    "a single line without a final newline",
    "The quick brown fox jumps over the lazy dog\nThe dog sleeps\nThe fox runs away into the forest\nEnd\n",
]


def counts(text: str, folder: Path, number: int) -> bool:
    path = folder / f"input{number}.txt"
    path.write_text(text)
    expected = str(len(text.split()))
    try:
        result = subprocess.run(["bash", "/app/wordcount.sh", str(path)], capture_output=True, text=True, timeout=20, cwd="/tmp")
    except subprocess.TimeoutExpired:
        print(f"wordcount.sh {path} did not finish", file=sys.stderr)
        return False
    ok = result.returncode == 0 and result.stdout.strip() == expected
    if not ok:
        print(f"wordcount.sh on {text!r} printed {result.stdout!r} (exit {result.returncode}), expected {expected}", file=sys.stderr)
    return ok


if not Path("/app/wordcount.sh").is_file():
    print("/app/wordcount.sh does not exist", file=sys.stderr)
    print(0)
else:
    with tempfile.TemporaryDirectory() as scratch:
        results = [counts(text, Path(scratch), number) for number, text in enumerate(TEXTS)]
    print(1 if all(results) else 0)

"""Prints 1 when /app/python_path.txt holds the absolute path of the python3 found first on PATH (or of the file it links to), else 0."""

import os
import shutil
import sys
from pathlib import Path


def main() -> int:
    found_on_path = shutil.which("python3", path=os.environ.get("PATH") or os.defpath)
    if not found_on_path:
        print("python3 is not on PATH", file=sys.stderr)
        return 0
    real = os.path.realpath(found_on_path)
    answer = Path("/app/python_path.txt")
    found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
    right = found in (found_on_path, real) or (
        os.path.isabs(found) and os.path.isfile(found) and os.path.realpath(found) == real
    )
    if not right:
        print(f"/app/python_path.txt holds {found!r}, not {found_on_path} (which is {real})", file=sys.stderr)
        return 0
    return 1


print(main())

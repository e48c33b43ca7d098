"""Prints 1 when /app/empty_files.txt lists exactly the empty files under /app/uploads (any order), and nothing there changed, else 0."""

import hashlib
import sys
from pathlib import Path

TREE_SHA256 = "405bb9d1c9a2c0b964c32f42a94be45074c65a069c8e14507ef355ec4c2cbe58"
EMPTY_SHA256 = "aa00b638614dd28d61dae0ca39b758d496606b2ef710533ed1c9aabd96d8e17d"


def tree_digest(root: Path) -> str:
    """The sorted paths and sizes of everything under root."""
    if not root.is_dir():
        return ""
    rows = sorted(f"{p.relative_to(root)}\t{p.stat().st_size if p.is_file() else 'dir'}" for p in root.rglob("*"))
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


def list_digest(path: Path) -> str:
    """The sorted, de-duplicated non-blank lines of path."""
    lines = path.read_text(errors="replace").splitlines() if path.is_file() else []
    return hashlib.sha256("\n".join(sorted({line.strip() for line in lines if line.strip()})).encode()).hexdigest()


if __name__ == "__main__":
    tree_kept = tree_digest(Path("/app/uploads")) == TREE_SHA256
    if not tree_kept:
        print("the files under /app/uploads were changed", file=sys.stderr)
    answer = Path("/app/empty_files.txt")
    right = list_digest(answer) == EMPTY_SHA256
    if not right:
        print("/app/empty_files.txt does not list exactly the empty files", file=sys.stderr)
    print(1 if tree_kept and right else 0)

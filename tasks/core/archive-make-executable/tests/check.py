"""Prints 1 when every .sh file in /app/bin runs directly, the other files keep their modes, and no content changed, else 0."""

import hashlib
import stat
import subprocess
import sys
from pathlib import Path

SCRIPTS = ["backup.sh", "cleanup.sh", "deploy.sh"]
OTHERS = {"README.md": 0o644, "hosts.txt": 0o644, "settings.conf": 0o600}
CONTENTS_SHA256 = "5c1ba2d4be6245fd0812d9a5e3694de5ad9304486c1a2f8c137c6058be95f03a"

root = Path("/app/bin")


def contents_digest(folder: Path) -> str:
    """The names and contents of the files in folder."""
    files = sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    return hashlib.sha256(b"".join(p.name.encode() + b"\0" + p.read_bytes() + b"\0" for p in files)).hexdigest()


def runs(name: str) -> bool:
    try:
        result = subprocess.run([str(root / name)], capture_output=True, text=True, timeout=20, cwd="/tmp")
    except (OSError, subprocess.TimeoutExpired) as error:
        print(f"{root / name}: {error}", file=sys.stderr)
        return False
    return result.returncode == 0 and result.stdout.startswith(name.removesuffix(".sh") + ":")


if __name__ == "__main__":
    right = contents_digest(root) == CONTENTS_SHA256
    if not right:
        print("the files in /app/bin were changed, added or removed", file=sys.stderr)
    right = right and all(runs(name) for name in SCRIPTS)
    for name, mode in OTHERS.items():
        found = stat.S_IMODE((root / name).stat().st_mode) if (root / name).is_file() else None
        if found != mode:
            print(f"{root / name} has mode {found and oct(found)}, expected {oct(mode)}", file=sys.stderr)
            right = False
    print(1 if right else 0)

"""Prints 1 when /app/reports.tar.gz is a gzip tar of every file of the unchanged /app/reports, stored under reports/, else 0."""

import hashlib
import sys
import tarfile
from pathlib import Path

REPORTS_SHA256 = "a2dcd438769b7f600a331a30cef11426c70fb45c8f9616ea65ddd7079a7df094"


def files_of(root: Path) -> dict[str, bytes]:
    """The files under root by path relative to root's parent, e.g. reports/summary.txt."""
    if not root.is_dir():
        return {}
    return {str(p.relative_to(root.parent)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def digest(files: dict[str, bytes]) -> str:
    return hashlib.sha256(b"".join(name.encode() + b"\0" + data + b"\0" for name, data in sorted(files.items()))).hexdigest()


def archived(path: Path) -> dict[str, bytes]:
    """The regular files of the gzip tar at path, by member name without a leading ./"""
    try:
        with tarfile.open(path, "r:gz") as archive:
            return {m.name.removeprefix("./"): archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()}
    except (OSError, tarfile.TarError, EOFError) as error:
        print(f"{path}: {error}", file=sys.stderr)
        return {}


if __name__ == "__main__":
    originals = files_of(Path("/app/reports"))
    kept = digest(originals) == REPORTS_SHA256
    if not kept:
        print("/app/reports was changed or removed", file=sys.stderr)
    found = archived(Path("/app/reports.tar.gz"))
    right = kept and found == originals
    if kept and not right:
        print(f"the archive holds {sorted(found)}, expected {sorted(originals)} with the same contents", file=sys.stderr)
    print(1 if right else 0)

"""Component and file names coming from a harness, a run or an imported file are never trusted."""

from pathlib import PurePosixPath

from harness_evo.errors import UserError


def safe_relative(name: str) -> str:
    """`name` as a clean relative POSIX path, or a UserError when it could escape its folder."""
    path = PurePosixPath(name)
    if not name or "\\" in name or path.is_absolute() or ".." in path.parts or name.startswith("~"):
        raise UserError(f"refusing unsafe path {name!r}: component and skill names must be relative, without '..'")
    return str(path)

"""Binary files of a harness (a skill's fonts, a PDF it shows, an archive its script unpacks): opaque assets.

A harness is text components the optimizer reads and edits; a file that is not text rides beside them as it is. Assets
live only in skill and tool folders (`skills/<name>/...`, `tools/<name>/...`), are copied into the sandbox with their
skill or tool, count in the harness hash by their sha256, and are never shown to a model or edited. A size cap per file
and per harness keeps a run's snapshots and each sandbox's copy small.
"""

import hashlib
from dataclasses import dataclass

MAX_ASSET_BYTES = 4 << 20
"""Largest binary file a harness carries."""
MAX_ASSETS_BYTES = 16 << 20
"""Largest total of a harness's binary files (the 56 fonts, PDF and archive of Anthropic's public skills take 5.6
MB)."""
PLACES = ("skills", "tools")
"""The top folders whose skill or tool folders may hold binary files."""


@dataclass(frozen=True)
class AssetInfo:
    """One binary file as EXPORT.md and the notes of an import list it."""

    path: str
    size: int
    sha256: str

    def line(self) -> str:
        return f"`{self.path}` ({describe_size(self.size)}, sha256 {self.sha256[:12]})"


def as_text(data: bytes) -> str | None:
    """A file's text with its line ends made `\\n` (as reading it in text mode gives it), or None when it is binary: not
    UTF-8, or holding a NUL byte (which no text file needs)."""
    if b"\x00" in data:
        return None
    try:
        return data.decode().replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError:
        return None


def placeable(path: str) -> bool:
    """Whether a binary file may be at `path`: inside a skill's or a tool's folder, not its SKILL.md or tool.toml."""
    parts = path.split("/")
    return len(parts) >= 3 and parts[0] in PLACES and parts[-1] not in ("SKILL.md", "tool.toml")


def problems(assets: dict[str, bytes]) -> list[str]:
    """Every way `assets` (relative path -> bytes) break the rules above; empty when they keep them."""
    found = [
        f"{path}: a binary file; only skill and tool folders (skills/<name>/, tools/<name>/) may hold one"
        for path in assets
        if not placeable(path)
    ]
    found += [
        f"{path}: {len(data):,} bytes, a binary file may have at most {MAX_ASSET_BYTES:,} "
        f"({describe_size(MAX_ASSET_BYTES)})"
        for path, data in assets.items()
        if len(data) > MAX_ASSET_BYTES
    ]
    total = sum(len(data) for data in assets.values())
    if total > MAX_ASSETS_BYTES:
        found.append(
            f"binary files of {total:,} bytes in all, a harness may carry at most {MAX_ASSETS_BYTES:,} "
            f"({describe_size(MAX_ASSETS_BYTES)})"
        )
    return found


def digest(assets: dict[str, bytes]) -> dict[str, str]:
    """Path -> sha256 of each asset: what the harness hash counts of them."""
    return {path: hashlib.sha256(data).hexdigest() for path, data in sorted(assets.items())}


def listing(assets: dict[str, bytes], prefix: str = "") -> list[AssetInfo]:
    """The assets as EXPORT.md lists them, under `prefix` (where a format puts them)."""
    return [AssetInfo(f"{prefix}{path}", len(assets[path]), sha) for path, sha in digest(assets).items()]


def describe_size(size: int) -> str:
    return (
        f"{size} bytes"
        if size < 1024
        else f"{size / 1024:.0f} KiB"
        if size < 1 << 20
        else f"{size / (1 << 20):.1f} MiB"
    )

"""What every format shares: the result of an export or an import, where it came from, and a safe writer."""

import time
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field

from harness_evo.errors import UserError
from harness_evo.harness.assets import as_text, listing
from harness_evo.harness.folder import Harness
from harness_evo.harness.paths import safe_relative
from harness_evo.templating import environment

TEMPLATES = environment(Path(__file__).parent)
"""The text files these formats generate (EXPORT.md, generated SKILL.md, CLAUDE.md) are templates beside this module."""
CARRIED = "harness-evo"
"""Folder of a skills or Claude Code export that holds, as they are, the components the format has no place for
(harness.toml, prompts/): an import takes them back from there, so that it needs no base harness."""
HELD_AS_SKILLS = ("skills/", "tools/", "examples/")
"""Components a skills-based export holds as skills of their own (and an import turns back)."""


class Origin(BaseModel):
    """Where an exported harness came from."""

    run: str | None = None
    """Run id."""
    kind: str | None = None
    """Kind of the run (eval, evolve, analyze)."""
    node: str | None = None
    """Node id, i.e. the harness hash."""
    status: str | None = None
    """Node status (root, accepted) or `evaluated` for the harness of an eval run."""
    iteration: int | None = None
    """Iteration that created the node."""
    scores: dict[str, tuple[float | None, int]] = Field(default_factory=dict)
    """Split -> (score, number of rollouts behind it); train and dev are never mixed."""


class Exported(BaseModel):
    """The files of an export (relative path -> text) and what the format could not carry."""

    files: dict[str, str]
    assets: dict[str, bytes] = Field(default_factory=dict)
    """The harness's binary files this format carries, where it puts them (relative path -> bytes)."""
    lost: list[str] = Field(default_factory=list)
    """Sentences: what of the harness is not in these files, and why."""
    usage: list[str] = Field(default_factory=list)
    """Sentences: how to use the export."""


class Imported(BaseModel):
    """A harness made from another format, and what of the source was left out."""

    model_config = {"arbitrary_types_allowed": True}

    harness: Harness
    notes: list[str] = Field(default_factory=list)
    """Sentences: settings of the source that a harness does not hold (they belong to a run, or have no equivalent)."""


class Exporter(Protocol):
    """Turns a harness into the files of one format."""

    name: str
    """The format's name on the command line."""

    def export(self, harness: Harness) -> Exported: ...


class Importer(Protocol):
    """Turns a harness of one format into a harness folder, or refuses with the reason."""

    name: str

    def load(self, source: Path, base: Harness | None) -> Imported:
        """`base` provides what the source format has no place for (e.g. prompts, for a folder of skills); a UserError
        says so when the source needs one and there is none."""
        ...


def write_folder(out: Path, files: dict[str, str] | dict[str, str | bytes], empty: bool = False) -> Path:
    """Write `files` (text, or bytes for a binary file) under `out`, never outside it: unsafe names, links on the way
    and existing files are refused; with `empty`, so is a folder that holds anything (a harness folder made there would
    carry it)."""
    out = Path(out)
    if out.is_symlink():
        raise UserError(f"{out} is a link; export into a real folder")
    if empty and out.is_dir() and any(out.iterdir()):
        raise UserError(f"{out} is not empty; a harness folder is written into an empty or new folder")
    root = out.resolve()
    targets = {safe_relative(relative): text for relative, text in files.items()}
    for relative in targets:
        path = out / relative
        for parent in [out / part for part in _prefixes(relative)]:
            if parent.is_symlink():
                raise UserError(f"{parent} is a link; refusing to write through it")
        if path.exists() or path.is_symlink():
            raise UserError(f"{path} already exists; export into an empty or new folder")
        if not path.resolve().is_relative_to(root):
            raise UserError(f"refusing to write {relative}: it resolves outside {out}")
    for relative, content in targets.items():
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
        if content.startswith(b"#!" if isinstance(content, bytes) else "#!"):
            path.chmod(0o755)
    return out


def _prefixes(relative: str) -> list[str]:
    parts = relative.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def export_notes(harness: Harness, origin: Origin, format_name: str, exported: Exported) -> str:
    """The text of EXPORT.md."""
    return TEMPLATES.get_template("EXPORT.md.j2").render(
        harness=harness,
        origin=origin,
        format=format_name,
        exported=exported,
        when=time.strftime("%Y-%m-%d %H:%M"),
        assets=listing(exported.assets),
    )


def read_files(folder: Path) -> tuple[dict[str, str], dict[str, bytes]]:
    """Relative path -> text of every text file under `folder`, and relative path -> bytes of every binary one; links
    are refused."""
    texts, binaries = {}, {}
    for path in sorted(folder.rglob("*")):
        relative = safe_relative(path.relative_to(folder).as_posix())
        if path.is_symlink():
            raise UserError(f"{path}: links are refused; copy the file in place of the link")
        if path.is_file() and "__pycache__" not in path.parts:
            try:
                data = path.read_bytes()
            except OSError as e:
                raise UserError(f"{path}: cannot be read ({e.strerror})") from None
            text = as_text(data)
            if text is None:
                binaries[relative] = data
            else:
                texts[relative] = text
    return texts, binaries


def read_text_files(folder: Path) -> dict[str, str]:
    """Relative path -> text of every file under `folder`; links and binary files are refused."""
    texts, binaries = read_files(folder)
    if binaries:
        raise UserError(
            f"{folder / next(iter(binaries))}: not a text file; binary files may only be in skill and tool folders"
        )
    return texts


def carried(harness: Harness) -> dict[str, str]:
    """The files of the CARRIED folder of a skills-based export: every component it does not hold as a skill."""
    return {
        f"{CARRIED}/{path}": text for path, text in harness.components.items() if not path.startswith(HELD_AS_SKILLS)
    }


def read_carried(folder: Path) -> dict[str, str] | None:
    """The components an export carried in `folder`'s CARRIED folder; None when it has none."""
    root = folder / CARRIED
    if root.is_symlink() or not (root / "harness.toml").is_file():
        return None
    return read_text_files(root)

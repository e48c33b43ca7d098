"""Export a harness to the formats agent frameworks use, and import one from them. One module per format."""

from pathlib import Path

from harness_evo.errors import UserError
from harness_evo.harness.folder import Harness
from harness_evo.harness.formats.agent_skills import AgentSkills, frontmatter_problems, skill_problems
from harness_evo.harness.formats.base import Exported, Exporter, Imported, Importer, Origin, export_notes, write_folder
from harness_evo.harness.formats.claude_code import ClaudeCode
from harness_evo.harness.formats.mini_swe_agent import MiniSweAgent
from harness_evo.harness.formats.native import Native

EXPORTERS: dict[str, Exporter] = {f.name: f for f in (Native(), MiniSweAgent(), AgentSkills(), ClaudeCode())}
IMPORTERS: dict[str, Importer] = {f.name: f for f in (Native(), MiniSweAgent(), AgentSkills(), ClaudeCode())}


def export_harness(harness: Harness, format_name: str, out: Path, origin: Origin | None = None) -> Exported:
    """Write `harness` in `format_name` under `out`, with an EXPORT.md saying where it came from and what was lost."""
    exporter = pick(EXPORTERS, format_name, "export")
    exported = exporter.export(harness)
    if "EXPORT.md" in exported.files:
        raise UserError("the harness has a component named EXPORT.md, which an export writes itself; rename it")
    notes = export_notes(harness, origin or Origin(), format_name, exported)
    write_folder(out, exported.files | exported.assets | {"EXPORT.md": notes})
    return exported


def import_harness(format_name: str, source: Path, out: Path, base: Harness | None) -> Imported:
    """Make a harness folder at `out` from `source` in `format_name`; refuses, with the reason, what it cannot express.
    `base` gives what the source has no place for; an export of harness-evo carries it, other sources may need it."""
    imported = pick(IMPORTERS, format_name, "import").load(Path(source), base)
    write_folder(out, imported.harness.components | imported.harness.assets, empty=True)
    return imported


def pick(registry: dict, name: str, verb: str):
    if name not in registry:
        raise UserError(f"cannot {verb} format {name!r}; choose one of: {', '.join(registry)}")
    return registry[name]


__all__ = [
    "EXPORTERS",
    "IMPORTERS",
    "Exported",
    "Imported",
    "Origin",
    "export_harness",
    "frontmatter_problems",
    "import_harness",
    "skill_problems",
]

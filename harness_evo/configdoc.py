"""The run configuration and a harness's settings documented: every section and field with its value and its docstring,
as TOML or markdown.

Both come from the pydantic models (`config.py` for a run, `harness/folder.py` for `harness.toml`), so
`harness-evo config --defaults [--harness]` and `docs/configuration.md` say what the code does.
"""

import re
import textwrap
import typing
from dataclasses import dataclass
from pathlib import Path

import tomli_w
from pydantic import BaseModel

from harness_evo.config import RunConfig
from harness_evo.harness.folder import HarnessInfo, HarnessToml

WIDTH = 118
BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
MARKDOWN_HEADER = """# Configuration

Every setting of a run, with its default. A run reads them from a TOML file (`--config FILE`); command-line options
override the file, and the run folder keeps the resolved configuration as `config.toml`. Unknown keys are errors.
Generated from the models in `harness_evo/config.py` by `harness-evo config --defaults --markdown`; do not edit it by
hand (a test keeps it in sync). `harness-evo config --defaults` prints the same as a TOML file to start from.
"""
HARNESS_HEADER = """# Harness settings (`harness.toml`)

A harness folder's own settings, with their defaults: they travel with the harness, and evolution may change them like
any other component. Unknown keys are errors. `harness-evo config --defaults --harness` prints them as a `harness.toml`
to start from; [formats.md](formats.md) describes the rest of the folder.
"""


@dataclass(frozen=True)
class Setting:
    """One field: its name, value (None: unset), docstring and the values it may take (for a choice)."""

    name: str
    value: object
    doc: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Section:
    """One model of the configuration: its dotted TOML table (empty for the top level), docstring and fields."""

    table: str
    doc: str
    settings: list[Setting]


def sections(config: BaseModel, table: str = "", doc: str = "") -> list[Section]:
    """`config` and every model under it, each as a section, in the order of their fields (a table's plain settings
    before its sub-tables, as TOML needs). A section's doc is its model's docstring, after its field's when the model
    has several fields (the roles' models)."""
    fields = type(config).model_fields
    plain = [
        Setting(name, getattr(config, name), one_line(field.description), choices(field.annotation))
        for name, field in fields.items()
        if not isinstance(getattr(config, name), BaseModel)
    ]
    found = [Section(table, one_line(f"{doc} {type(config).__doc__}"), plain)]
    kinds = [type(getattr(config, name)) for name in fields]
    for name, field in fields.items():
        value = getattr(config, name)
        if isinstance(value, BaseModel):
            shared = kinds.count(type(value)) > 1
            found += sections(value, f"{table}.{name}" if table else name, (field.description or "") if shared else "")
    return found


def one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def choices(annotation: object) -> tuple[str, ...]:
    """The values a Literal field (or a list of Literals) may take; none for other fields."""
    if typing.get_origin(annotation) is typing.Literal:
        return tuple(str(value) for value in typing.get_args(annotation))
    return next((found for arg in typing.get_args(annotation) if (found := choices(arg))), ())


def toml_value(value: object) -> str:
    """`value` as a TOML value on one line (lists and tables inline)."""
    if isinstance(value, Path):
        value = value.as_posix()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(key)} = {toml_value(item)}" for key, item in value.items()) + "}"
    return tomli_w.dumps({"v": value}).removeprefix("v = ").strip()


def toml_key(key: str) -> str:
    """`key` bare when TOML allows it, else quoted (`"python:3.11"`)."""
    return key if BARE_KEY.fullmatch(key) else toml_value(key)


def comment(text: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False)


def as_toml(config: BaseModel) -> str:
    """The configuration as a TOML file a run loads: each field under its docstring (and its choices), unset fields
    commented out."""
    lines: list[str] = []
    for section in sections(config):
        if section.table:
            lines += ["", f"[{section.table}]"]
        lines += comment(section.doc)
        for setting in section.settings:
            lines.append("")
            lines += comment(setting.doc + (f" One of: {', '.join(setting.choices)}." if setting.choices else ""))
            lines.append(
                f"# {setting.name} = (unset)"
                if setting.value is None
                else f"{setting.name} = {toml_value(setting.value)}"
            )
    return "\n".join(lines).strip() + "\n"


def harness_defaults() -> HarnessToml:
    """The settings of a new harness: every one at its default."""
    return HarnessToml(harness=HarnessInfo(name="my-harness"))


def as_markdown(config: RunConfig) -> str:
    """The configuration, then a harness's settings, as a markdown page: a table of settings (key, default, what it
    does) per section."""
    lines = [
        MARKDOWN_HEADER,
        *markdown_tables(sections(config)),
        HARNESS_HEADER,
        *markdown_tables(sections(harness_defaults()), " of harness.toml"),
    ]
    return "\n".join(lines).rstrip() + "\n"


def markdown_tables(found: list[Section], of: str = "") -> list[str]:
    """A heading (each table's name and `of`), the section's doc and a table of its settings, per section."""
    lines = []
    for section in found:
        if not section.table and not section.settings:
            continue
        lines += [f"## `[{section.table}]`{of}" if section.table else "## Top level", "", cell(section.doc), ""]
        if not section.settings:
            continue
        lines += ["| key | default | what it sets |", "| --- | --- | --- |"]
        for setting in section.settings:
            default = "unset" if setting.value is None else f"`{toml_value(setting.value)}`"
            doc = setting.doc + (
                f" One of: {', '.join(f'`{choice}`' for choice in setting.choices)}." if setting.choices else ""
            )
            lines.append(f"| `{setting.name}` | {cell(default)} | {cell(doc)} |")
        lines.append("")
    return lines


def cell(text: str) -> str:
    """`text` safe in a markdown table cell."""
    return text.replace("|", "\\|")

"""Change one setting of a harness's `harness.toml`, keeping the rest of the file (comments, order) as it was."""

from typing import Any

import tomlkit

from harness_evo.harness.edit import Edit, Write


def set_setting(toml: str, section: str, key: str, value: bool | int | float | str) -> str:
    """`toml` with `[section] key = value` (the section is added when missing)."""
    document = tomlkit.parse(toml)
    if section not in document:
        document[section] = tomlkit.table()
    document[section][key] = value
    return tomlkit.dumps(document)


def setting_edit(toml: str, section: str, key: str, value: bool | int | float | str) -> Edit:
    """The edit that sets `[section] key = value` in the harness.toml `toml`."""
    return Edit(
        ops=[Write(path="harness.toml", text=set_setting(toml, section, key, value))],
        rationale=f"[{section}] {key} = {value}",
    )


def with_settings(toml: str, wanted: dict[str, dict[str, Any]]) -> str:
    """`toml` whose tables in `wanted` hold exactly those keys and values: a key whose value is already equal keeps its
    text (`30` stays `30` for a wanted `30.0`), others are set, and keys `wanted` lacks are removed."""
    document = tomlkit.parse(toml)
    for section, values in wanted.items():
        if section not in document:
            if not values:
                continue
            document[section] = tomlkit.table()
        table = document[section]
        for key in [key for key in table if key not in values]:
            del table[key]
        for key, value in values.items():
            if key not in table or table[key] != value:
                table[key] = value
    return tomlkit.dumps(document)

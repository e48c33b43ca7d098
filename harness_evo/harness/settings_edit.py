"""Change one setting of a harness's `harness.toml`, keeping the rest of the file (comments, order) as it was."""

import tomlkit


def set_setting(toml: str, section: str, key: str, value: bool | int | float | str) -> str:
    """`toml` with `[section] key = value` (the section is added when missing)."""
    document = tomlkit.parse(toml)
    if section not in document:
        document[section] = tomlkit.table()
    document[section][key] = value
    return tomlkit.dumps(document)

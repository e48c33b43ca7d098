"""The Jinja2 environments of harness-evo: role prompts, harness prompts and generated files all render in one."""

from pathlib import Path

import jinja2


def environment(folder: Path | None = None, *, strict: bool = True, trim_blocks: bool = True) -> jinja2.Environment:
    """Templates from `folder` (or from strings). An undefined variable is an error unless not `strict` (it then renders
    as nothing); a block tag takes its line's newline and indentation with it unless not `trim_blocks` (a harness's own
    prompts render as their authors wrote them); a template's last newline is kept; nothing is escaped."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder) if folder else None,
        undefined=jinja2.StrictUndefined if strict else jinja2.Undefined,
        trim_blocks=trim_blocks,
        lstrip_blocks=trim_blocks,
        keep_trailing_newline=True,
        autoescape=False,
    )

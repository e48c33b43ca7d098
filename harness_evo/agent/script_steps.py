"""A task's reference solution (`solution/solve.sh`) as the steps an agent would take:
one complete shell command each."""

import re
import subprocess

SHARED_STATE = re.compile(
    r"^\s*(?:cd\s|export\s|source\s|\.\s|[A-Za-z_][A-Za-z0-9_]*=|[A-Za-z_][A-Za-z0-9_]*\s*\(\)|function\s)", re.M
)
"""A top-level line whose effect (directory, variables, functions) later commands of the same shell rely on."""


def complete(chunk: str) -> bool:
    """Whether `chunk` is whole shell syntax: no open quote, block or here-document."""
    checked = subprocess.run(["bash", "-n"], input=chunk, capture_output=True, text=True)
    return checked.returncode == 0 and "here-document" not in checked.stderr


SET_OPTIONS = re.compile(r"^set\s+[-+][A-Za-z]+(?:\s+(?:-o\s+)?pipefail)?\s*$", re.M)
"""`set -euo pipefail` and the like: shell options, not a step."""


def script_steps(script: str) -> list[str]:
    """The commands of `script` one per step, in order; the whole script as one step when its commands share shell
    state (each step of an agent runs in a new shell). The shebang, `set` lines and comments between commands go; a
    command's own text (a here-document's lines included) is kept as it is."""
    lines = script.splitlines()[1:] if script.startswith("#!") else script.splitlines()
    chunks, current = [], []
    for line in lines:
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current.append(line)
        if complete("\n".join(current)):
            chunks.append("\n".join(current).strip())
            current = []
    chunks = [chunk for chunk in chunks if not SET_OPTIONS.fullmatch(chunk)]
    if current or any(SHARED_STATE.match(chunk) for chunk in chunks):
        whole = SET_OPTIONS.sub("", "\n".join(lines))
        return [re.sub(r"\n{3,}", "\n\n", whole).strip()] if whole.strip() else []
    return chunks

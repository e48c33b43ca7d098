"""Workspace discovery: commands the agent loop runs in the sandbox before the first reply, so that the first prompt
already shows the working folder and the files the instruction names (`[agent] discovery`)."""

import re
import shlex
from collections.abc import Callable

from harness_evo.agent.actions import cut
from harness_evo.harness import AgentSettings
from harness_evo.harness.features import Finding
from harness_evo.sandbox import CommandResult

MAX_NAMED = 5
"""At most this many files or folders the instruction names are shown."""
MAX_CANDIDATES = 20
"""Words of the instruction that look like paths, looked up in the sandbox (the first ones)."""
PATH_LIKE = re.compile(r"^(?:[\w.~-]*/[\w./~-]*|[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})$")
"""A word with a slash in it (`/app/data`, `src/main.py`), or a file name with an extension (`notes.txt`)."""
Run = Callable[[str, float], CommandResult]
"""Runs a command in the sandbox as the agent's commands are run (its harness's tools on PATH),
with a timeout in seconds."""
EDGES = "`'\"()[]{}<>,;:!?*"


def discover(settings: AgentSettings, instruction: str, run: Run) -> list[Finding]:
    """What each discovery command printed, then the head of each file (or the listing of each folder) the instruction
    names that exists in the sandbox; `run(command, timeout_s)` runs a command as the agent's commands are run."""
    findings = [look(command, settings, run) for command in settings.discovery_commands]
    if settings.discovery_head_lines:
        for kind, path in named(instruction, settings, run):
            command = (
                f"head -n {settings.discovery_head_lines} {shlex.quote(path)}"
                if kind == "f"
                else f"ls -la {shlex.quote(path)}"
            )
            findings.append(look(command, settings, run))
    return findings


def look(command: str, settings: AgentSettings, run: Run) -> Finding:
    result = run(command, settings.command_timeout_s)
    return Finding(
        command=command,
        output=cut(result.output, settings.max_observation_chars),
        exit_code=result.exit_code,
        timed_out=result.timed_out,
    )


def named(instruction: str, settings: AgentSettings, run: Run) -> list[tuple[str, str]]:
    """(`f` or `d`, path) of the files and folders the instruction names that exist in the sandbox, in the order it
    names them, at most MAX_NAMED."""
    candidates = path_words(instruction)[:MAX_CANDIDATES]
    if not candidates:
        return []
    probe = (
        "for p in " + " ".join(shlex.quote(path) for path in candidates) + "; do "
        'if [ -f "$p" ]; then printf "f\\t%s\\n" "$p"; elif [ -d "$p" ]; then printf "d\\t%s\\n" "$p"; fi; done'
    )
    result = run(probe, settings.command_timeout_s)
    found = [tuple(line.split("\t", 1)) for line in result.output.splitlines() if line[:2] in ("f\t", "d\t")]
    return [(kind, path) for kind, path in found if path in candidates][:MAX_NAMED]


def path_words(instruction: str) -> list[str]:
    """The words of `instruction` that look like paths, without quotes, brackets and a sentence's closing period; once
    each, in order. URLs are not paths."""
    found: list[str] = []
    for word in instruction.split():
        word = word.strip(EDGES).rstrip(".")
        if "://" not in word and PATH_LIKE.match(word) and word not in found and word not in (".", "..", "/"):
            found.append(word)
    return found

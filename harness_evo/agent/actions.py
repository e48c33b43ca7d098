"""What the agent loop reads in replies and outputs besides the action format (harness/actions.py): where generation
stops, that the agent says it has finished, which programs a command runs."""

import re

from harness_evo.harness.actions import DONE_MARKER

STOP_SEQUENCES = ["\n```\n"]
"""Generation stops after the first closed code block; the rest of a small model's reply is noise."""


def closed(reply: str) -> str:
    """The reply as the model meant it: a block cut off by a stop sequence gets its closing fence back."""
    return reply if reply.count("```") % 2 == 0 else reply.rstrip() + "\n```"


def says_done(output: str) -> bool:
    lines = output.strip().splitlines()
    return bool(lines) and lines[-1].strip() == DONE_MARKER


def runs_program(action: str, program: str) -> bool:
    """Some line of the command `action` runs `program` (not only names it, as `apt-get install sqlite3` does)."""
    return any(re.search(running(program), line) for line in command_lines(action))


def running(program: str) -> str:
    """A regex for a command line that runs `program`: as its command, after a shell operator, or under sudo."""
    return rf"(?:^|[;&|(`]\s*|\bsudo\s+){re.escape(program)}(?:\s|$)"


def command_lines(action: str) -> list[str]:
    return [line.split("#")[0].strip() for line in action.splitlines()]

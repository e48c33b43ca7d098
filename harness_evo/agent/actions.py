"""Turning a model's reply into a command, and recognizing that the agent says it has finished."""

import re

DONE_MARKER = "TASK_DONE"
"""A command whose output ends with this line says the task is complete."""

STOP_SEQUENCES = ["\n```\n"]
"""Generation stops after the first closed code block; the rest of a small model's reply is noise."""

_BLOCK = re.compile(r"```(?P<lang>[A-Za-z0-9_+-]*)[ \t]*\n(?P<body>.*?)(?:\n?```|\Z)", re.DOTALL)
SHELL_LANGUAGES = ("bash", "sh", "shell", "console", "")


class FormatError(Exception):
    """A reply the harness cannot run; the message is shown to the model through format_error.md.j2."""


def parse_bash_block(reply: str) -> str:
    """The command of the first fenced shell block (a block cut off by a stop sequence counts)."""
    for match in _BLOCK.finditer(reply):
        if match.group("lang").lower() in SHELL_LANGUAGES:
            command = match.group("body").strip()
            if command:
                return command
            raise FormatError("the bash block is empty.")
    raise FormatError("no fenced bash block found.")


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

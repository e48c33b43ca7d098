"""The `bash-block` action format: a reply is run as the command of its first fenced shell block."""

import re

DONE_MARKER = "TASK_DONE"
"""A command whose output ends with this line says the task is complete."""

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

"""The toolsmith: writes the script of a tool that stands in for a missing program, from how the agent called it.

Asked for a whole edit, the 1.5B proposer writes a tool's script as a shell line that quotes the evidence; asked
for nothing but the script, with the arguments it must handle, the same coder model writes python (not always
right: the gate measures it).
"""

import ast
import re
import shlex

from pydantic import BaseModel

from harness_evo.evolve import templates

CODE_BLOCK = re.compile(r"```(?:python3?|py)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)
MAX_SCRIPT_TOKENS = 900
SHELL_OPERATORS = re.compile(r"^(?:\d?>>?|<|\||\|\||&&|;|&|2>&1)$")


def program_args(call: str, program: str) -> list[str] | None:
    """The arguments `program` gets in the shell command `call`: `sqlite3 a.db 'SQL' > out.txt` -> ['a.db', 'SQL'] (a
    small model takes the shell's redirect for an argument of the program); None when the call cannot be read."""
    try:
        words = shlex.split(call)
    except ValueError:
        return None
    if program not in words:
        return None
    words = words[words.index(program) + 1 :]
    end = next((i for i, word in enumerate(words) if SHELL_OPERATORS.match(word)), len(words))
    return words[:end]


class Script(BaseModel):
    """A tool's python3 script and the usage line its docstring gives."""

    text: str
    description: str


def compiles(text: str) -> bool:
    """The text is a python3 program (not, say, a shell line that calls python3)."""
    try:
        compile(text, "tool.py", "exec")
    except (SyntaxError, ValueError):
        return False
    return bool(text.strip())


class Toolsmith:
    def __init__(self, llm):
        self.llm = llm

    def script(self, program: str, calls: list[str], seed: int = 0) -> Script | None:
        """A script standing in for `program` in `calls`, or None when the model wrote no python that compiles."""
        shown = {shlex.join([program, *args]): args for call in calls if (args := program_args(call, program)) is not None}
        messages = templates.messages("toolsmith", program=program, calls=shown)
        reply = self.llm.complete("proposer", messages, seed=seed, stop=["\n```\n"], max_tokens=MAX_SCRIPT_TOKENS)
        found = CODE_BLOCK.search(reply.text)
        text = found.group(1).strip() + "\n" if found else ""
        if not compiles(text):
            return None
        usage = (ast.get_docstring(ast.parse(text)) or "").strip().splitlines()
        return Script(text=text, description=usage_line(usage[0] if usage else "", program))


def usage_line(line: str, program: str) -> str:
    """The docstring's first line as the tool's description: it starts with the program's name."""
    line = line.strip()
    if line.startswith("PROGRAM"):
        line = program + line.removeprefix("PROGRAM")
    return line if line.startswith(program) else f"{program}: {line}".rstrip(": ")

"""The toolsmith: writes the script of a tool that stands in for a missing program, from how the agent called it.

The model is asked for the script alone, with the arguments it must handle (asked for a whole edit, a small model
writes a shell line instead of python). Given a `tryout`, each script is run on the agent's own calls before anyone
pays for a rollout with it; a script that fails one goes back to the model with the failure, for a bounded number of
attempts.
"""

import ast
import re
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from textwrap import shorten
from typing import Protocol

import tomli_w
from pydantic import BaseModel

from harness_evo.llm.prompts import RolePrompts

CODE_BLOCK = re.compile(r"```(?:python3?|py)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)
MAX_SCRIPT_TOKENS = 900
SHELL_OPERATORS = re.compile(r"^(?:\d?>>?|<|\||\|\||&&|;|&|2>&1)$")
FILE_LIKE = re.compile(r"\S*/\S*|\w[\w-]*\.\w+")
"""A path or a file name (`/app/a.db`, `a.db`; not `.tables` or `SELECT 1`)."""
MAX_TOOL_DESCRIPTION = 200
"""Characters of a tool's description kept: it is shown in every system prompt."""
TOOL_COMMAND = "python3 $TOOL_DIR/tool.py"
PROMPTS = RolePrompts(Path(__file__).parent / "prompts")
PLACEHOLDER = "what it does"
"""Where the toolsmith's prompt shows a docstring, the words that stand for the script's description."""


def tool_components(name: str, description: str, script: str) -> dict[str, str]:
    """The harness components of a tool `name` that runs the python3 `script`; its description as `usage_line` gives it
    (the proposer copies its prompt's placeholder too)."""
    description = shorten(usage_line(" ".join(description.split()), name), MAX_TOOL_DESCRIPTION, placeholder=" ...")
    spec = {"description": description, "command": TOOL_COMMAND}
    return {f"tools/{name}/tool.toml": tomli_w.dumps(spec), f"tools/{name}/tool.py": script}


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


def piped_input(call: str, program: str) -> str | None:
    """The command whose output `call` pipes into `program` (`cat a.json | jq .x` -> `cat a.json`), when it can be run
    again as it was written: not one that reads the agent's shell variables (`echo $line | jq .x`)."""
    try:
        words = shlex.split(call)
    except ValueError:
        return None
    before = words[: words.index(program)] if program in words else []
    if len(before) < 2 or before[-1] != "|":
        return None
    start = max((i + 1 for i, word in enumerate(before[:-1]) if SHELL_OPERATORS.match(word)), default=0)
    producer = before[start:-1]
    return shlex.join(producer) if producer and not any("$" in word or "`" in word for word in producer) else None


def as_tried(call: str, program: str) -> str | None:
    """`call` as the tryout runs it: the program on its own arguments, after the command that feeds it, if any."""
    args = program_args(call, program)
    if args is None:
        return None
    command = shlex.join([program, *args])
    return f"{piped} | {command}" if (piped := piped_input(call, program)) else command


class Script(BaseModel):
    """A tool's python3 script and the usage line its docstring gives."""

    text: str
    description: str
    tried: dict[str, str | None] = {}
    """The agent's calls it was tried on, each with how it failed (None when it ran the call)."""

    @property
    def ran_calls(self) -> set[str]:
        return {call for call, failure in self.tried.items() if failure is None}

    @property
    def ran(self) -> int:
        return len(self.ran_calls)

    @property
    def failures(self) -> list[str]:
        return [failure for failure in self.tried.values() if failure is not None]


class Tryout(Protocol):
    def run(self, program: str, script: str, calls: Mapping[str, str]) -> dict[str, str | None]:
        """The `calls` (command -> the task it ran in) that `script`, standing in for `program`, could be tried on,
        each with a sentence on how it failed, or None when it ran."""
        ...


def compiles(text: str) -> bool:
    """The text is a python3 program (not, say, a shell line that calls python3)."""
    try:
        compile(text, "tool.py", "exec")
    except (SyntaxError, ValueError):
        return False
    return bool(text.strip())


class Toolsmith:
    def __init__(self, llm, tryout: Tryout | None = None, attempts: int = 1):
        self.llm, self.tryout, self.attempts = llm, tryout, attempts

    def script(
        self, program: str, calls: Mapping[str, str], seed: int = 0, kept: frozenset[str] = frozenset()
    ) -> Script | None:
        """A script standing in for `program` in `calls` (command -> the task it ran in): the first that runs them all,
        else the one that ran most among those that run the `kept` commands (the ones the tool it replaces ran) if any
        does; None when the model wrote no python that compiles."""
        shown = {as_tried(call, program): args for call in calls if (args := program_args(call, program)) is not None}
        best, failed = None, None
        for attempt in range(self.attempts):
            messages = PROMPTS.messages(
                "toolsmith", program=program, calls=shown, failed=failed, placeholder=PLACEHOLDER
            )
            reply = self.llm.complete(
                "proposer", messages, seed=seed * 10 + attempt, stop=["\n```\n"], max_tokens=MAX_SCRIPT_TOKENS
            )
            found = CODE_BLOCK.search(reply.text)
            text = with_imports(found.group(1).strip() + "\n") if found else ""
            if not compiles(text):
                continue
            usage = (ast.get_docstring(ast.parse(text)) or "").strip().splitlines()
            script = Script(text=text, description=usage_line(usage[0] if usage else "", program))
            script.tried = hard_coded(text, shown) or (self.tryout.run(program, text, calls) if self.tryout else {})
            if not script.failures:
                return script
            if best is None or (kept <= script.ran_calls, script.ran) > (kept <= best.ran_calls, best.ran):
                best = script
            failed = script
        return best


def with_imports(text: str) -> str:
    """The script with an `import` for each standard library module it uses but never imports (`sys.argv` without
    `import sys`: a small model's common slip, and a crash on every call), after its docstring."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    bound = {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    bound |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    bound |= {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    bound |= {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
    used = {
        node.value.id for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    }
    missing = sorted(name for name in used - bound if name in sys.stdlib_module_names)
    if not missing:
        return text
    body = tree.body
    after = (
        body[0].end_lineno if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
    )
    lines = text.splitlines(keepends=True)
    return "".join([*lines[:after], *(f"import {name}\n" for name in missing), *lines[after:]])


def hard_coded(text: str, shown: Mapping[str, list[str]]) -> dict[str, str]:
    """The calls (shown as command -> arguments) whose file names the script writes into itself: it would work for
    that one task, and the critic refuses an edit that names a training task's file."""
    named = {}
    for call, args in shown.items():
        for arg in args:
            if value := next(
                (value for value in (arg, PurePosixPath(arg).name) if FILE_LIKE.fullmatch(value) and value in text),
                None,
            ):
                named[call] = f"the script names `{value}` from `{call}`: a stand-in takes every value from sys.argv"
    return named


def usage_line(line: str, program: str) -> str:
    """The docstring's first line as the tool's description: it starts with the program's name. A missing line, or
    one that copies the prompt's placeholder, says nothing to the agent, which sees it in every system prompt: what
    the tool stands in for is said instead."""
    line = line.strip()
    if not line or PLACEHOLDER in line:
        return f"{program}: works like the {program} program, which is not installed here"
    if line.startswith("PROGRAM"):
        rest = line.removeprefix("PROGRAM")
        line = rest.lstrip() if rest.lstrip().startswith(program) else program + rest
    return line if line.startswith(program) else f"{program}: {line}"

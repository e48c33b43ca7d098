"""Trying a stand-in tool's script on the agent's own calls, each in a fresh sandbox of the task that made it.

A script that crashes on the very call that failed for want of its program cannot fix that task; finding that out
takes a container start, where the gate would take dozens of rollouts.
"""

import re
import shlex
from collections.abc import Mapping

from pydantic import BaseModel

from harness_evo.agent.agents import TOOLS_BIN, tool_wrappers, with_tools
from harness_evo.errors import InfraError
from harness_evo.failures.digest import cut
from harness_evo.harness import Tool
from harness_evo.sandbox import CommandResult, SandboxBackend
from harness_evo.standins.toolsmith import TOOL_COMMAND, as_tried, piped_input, program_args
from harness_evo.taskset import Task

TRYOUT_TIMEOUT_S = 20.0
CUT_MARK = " chars cut ...]"
"""In a call that was too long to keep whole (see `failures.digest.cut`): it cannot be run as the agent wrote it."""
TRACEBACK = "Traceback (most recent call last)"
PYTHON_TUPLE = re.compile(r"^\(.*,.*\)$")
"""A line such as `(42,)` or `('a', 1)`: a row printed as python, which no command-line program prints."""
ERROR_MESSAGE = re.compile(r"^(?:[\w.-]+: )?(?:error|Error|ERROR)\b[^\n]*$")
"""All a call printed is one error line: a stand-in that catches its exception and prints it still exits 0."""
ERRORS = "/tmp/harness-evo-tryout.err"
FILES = (
    r"find / -xdev -type f ! -path '/proc/*' ! -path '/sys/*' ! -path '/dev/*' ! -path '/usr/*' "
    r"! -path '/tmp/harness-evo-tryout.*' ! -path /etc/hosts ! -path /etc/hostname ! -path /etc/resolv.conf "
    r"-printf '%p %m %s %T@\n' 2>/dev/null | sort"
)
"""Every file with its mode, size and modification time (the engine's own files left out). Opening a file for writing
copies it up to the container's layer with a new ctime but the same mode, size and mtime: that is no change."""
BEFORE, AFTER = "/tmp/harness-evo-tryout.before", "/tmp/harness-evo-tryout.after"
CHANGED_FILE = f"diff {BEFORE} {AFTER} | grep -m1 '^>'"
"""The first file the call wrote or changed the mode of (a stand-in may do its job silently, as an INSERT or
`sudo chmod` does)."""
OPENED = "/tmp/harness-evo-tryout.opened"
SITE = "/tmp/harness-evo-tryout.site"
SPAWNED = "<started a program>"
RECORD_OPENS = f"""import os, sys
_opened = open({OPENED!r}, "a")

def _program(event, args):
    if event == "os.system":
        command = args[0]
    elif isinstance(args[1], (list, tuple)) and len(args[1]) > 2 and os.fsdecode(args[1][1]) == "-c":
        command = args[1][2]
    else:
        return os.fsdecode(args[0])
    words = os.fsdecode(command).split()
    return words[0] if words else ""

def _record(event, args):
    if event in ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.system"):
        _opened.write("{SPAWNED} " + _program(event, args) + "\\n")
    elif event.startswith(("open", "os.", "shutil.", "sqlite3.connect")) and args and \
isinstance(args[0], (str, bytes, os.PathLike)):
        _opened.write(os.path.abspath(os.fsdecode(args[0])) + "\\n")
    _opened.flush()

sys.addaudithook(_record)
"""
"""A `sitecustomize` that has python write down every file a script opens or changes (sqlite3 opens its database
itself), and each program it started (whose files it cannot see): its path, or the name a shell line ran it by."""


class SandboxTryout:
    """Runs the script on the arguments of each call in a sandbox of the call's task, with the script on PATH as the
    program. A call it runs exits 0 without a traceback, opens the files the call names, and prints a result (not an
    error line, not a python tuple, not what it prints without the call's query) or writes a file, and starts the
    installed program its first argument names but never the program it stands in for (that is itself): a stand-in
    that does none of the program's work exits 0 all the same. A call whose sandbox fails counts as failed, never as
    run."""

    def __init__(self, backend: SandboxBackend, tasks: Mapping[str, Task]):
        self.backend, self.tasks = backend, tasks

    def run(self, program: str, script: str, calls: Mapping[str, str]) -> dict[str, str | None]:
        tried = {}
        for call, task_id in calls.items():
            if task_id in self.tasks and CUT_MARK not in call and (shown := as_tried(call, program)) is not None:
                try:
                    tried[shown] = verdict(program, shown, self.observe(program, script, call, self.tasks[task_id]))
                except InfraError as e:
                    tried[shown] = (
                        f"`{shown}` could not be tried, so it counts as failed: the sandbox failed ({cut(str(e), 200)})"
                    )
        return tried

    def observe(self, program: str, script: str, call: str, task: Task) -> "Observed":
        """What the script did with the agent's `call` of `program`, in a fresh sandbox of `task`."""
        args = program_args(call, program) or []
        command = shlex.join([program, *args])
        feed = f"{piped} 2>/dev/null | " if (piped := piped_input(call, program)) else ""
        tool = Tool(name=program, description=program, command=TOOL_COMMAND)
        self.backend.prepare(task)
        with self.backend.open(task) as sandbox:
            sandbox.write_files({f"{tool.folder}/tool.py": script})
            sandbox.write_files(tool_wrappers([tool]), executable=True)
            sandbox.write_files({f"{SITE}/sitecustomize.py": RECORD_OPENS})
            named = sandbox.run(
                f"{FILES} > {BEFORE}; {existing_files(args)}", timeout_s=TRYOUT_TIMEOUT_S
            ).output.splitlines()
            runs = next((arg for arg in args if not arg.startswith("-")), None)
            if runs and sandbox.run(f"command -v -- {shlex.quote(runs)}", timeout_s=TRYOUT_TIMEOUT_S).exit_code != 0:
                runs = None
            result = sandbox.run(
                with_tools(f"{feed}PYTHONPATH={SITE} {command} 2>{ERRORS}"), timeout_s=TRYOUT_TIMEOUT_S
            )
            observed = Observed(
                result=result,
                errors=sandbox.read_file(ERRORS) or "",
                named=named,
                runs=runs,
                opened=set((sandbox.read_file(OPENED) or "").splitlines()),
                changed=sandbox.run(f"{FILES} > {AFTER}; {CHANGED_FILE}", timeout_s=TRYOUT_TIMEOUT_S).output.strip(),
            )
            if (request := last_request(args)) and not observed.changed:
                without = shlex.join([program, *(arg for arg in args if arg != request)])
                observed.request = request
                observed.unasked = sandbox.run(with_tools(f"{feed}{without} 2>/dev/null"), timeout_s=TRYOUT_TIMEOUT_S)
        return observed


class Observed(BaseModel):
    """What a stand-in's script did with one call."""

    result: CommandResult
    errors: str
    """What it wrote to standard error."""
    named: list[str]
    """The existing files the call names."""
    runs: str | None
    """The installed program the call names first, if it names one (`sudo apt-get update`)."""
    opened: set[str]
    """The files it opened or changed, and `SPAWNED` and its name for each program it started."""
    changed: str
    """The first file it wrote or changed the mode of, if any."""
    request: str | None = None
    """The call's query (see `last_request`), when it has one and nothing changed."""
    unasked: CommandResult | None = None
    """What it did with the call without `request`."""


def verdict(program: str, shown: str, seen: Observed) -> str | None:
    """How the script standing in for `program` failed the call `shown`, or None when it ran it."""
    result, errors, changed = seen.result, seen.errors, seen.changed
    started = {line.removeprefix(SPAWNED).strip() for line in seen.opened if line.startswith(SPAWNED)}
    spawned = bool(started)
    if started & {program, f"{TOOLS_BIN}/{program}"}:
        return (
            f"`{shown}` starts `{program}`, which here is this very script, since the program is not installed: a "
            "stand-in does the program's work itself"
        )
    if result.timed_out:
        return f"`{shown}` did not finish in {TRYOUT_TIMEOUT_S:.0f} s"
    if result.exit_code != 0 or TRACEBACK in errors:
        tail = "\n".join(errors.strip().splitlines()[-3:])
        return f"`{shown}` exited with status {result.exit_code}: {cut(tail, 300) or 'no error message'}"
    if ERROR_MESSAGE.match(result.output.strip()):
        return f"`{shown}` printed an error instead of a result: {cut(result.output.strip(), 200)}"
    if tuple_line := next((line for line in result.output.splitlines() if PYTHON_TUPLE.match(line.strip())), None):
        return f"`{shown}` printed a python tuple (`{cut(tuple_line.strip(), 80)}`), not the program's plain output"
    if seen.named and not changed and not spawned and not seen.opened & set(seen.named):
        return (
            f"`{shown}` never opened {' or '.join(f'`{path}`' for path in seen.named)}, the file it names: a stand-in "
            "does the program's work on the files it is given"
        )
    if seen.runs and not changed and not spawned:
        return (
            f"`{shown}` never started `{seen.runs}`, the installed program it names: a stand-in runs the command it "
            "is given (or does its work), not only says it did"
        )
    if not result.output.strip() and not changed:
        return (
            f"`{shown}` printed nothing and changed no "
            f"file{f' (its errors: {cut(errors.strip(), 200)})' if errors.strip() else ''}"
        )
    if seen.unasked and seen.unasked.exit_code == 0 and seen.unasked.output == result.output:
        return (
            f"`{shown}` printed the same without `{cut(seen.request, 80)}`: a stand-in does what the call asks, not "
            "the same whatever it asks"
        )
    return None


def last_request(args: list[str]) -> str | None:
    """The call's last argument with a space in it that is no option: a query, a filter or a program (`SELECT
    count(*) FROM t`), which the real program never prints the same result without."""
    return next((arg for arg in reversed(args) if " " in arg.strip() and not arg.startswith("-")), None)


def existing_files(args: list[str]) -> str:
    """A shell line that prints the absolute path of each of `args` that names an existing file."""
    quoted = " ".join(shlex.quote(arg) for arg in args)
    return f'for arg in {quoted}; do [ -f "$arg" ] && realpath -s -- "$arg"; done; true' if args else "true"

"""The tryout: a stand-in tool's script runs the agent's own call in a real sandbox of the task that made it."""

import pytest

from harness_evo import world
from harness_evo.config import SandboxConfig
from harness_evo.sandbox import get_backend
from harness_evo.standins.tryout import SandboxTryout
from harness_evo.taskset.suite import load_suite

pytestmark = pytest.mark.docker

CALL = "putword ruby-red-9 color.txt > /dev/null"
"""A call in the task `color` (working directory /app), redirected as the agent often does."""


@pytest.fixture(scope="module")
def tryout() -> SandboxTryout:
    return SandboxTryout(get_backend(SandboxConfig()), load_suite(world.TASKS).tasks)


@pytest.mark.parametrize(
    "script",
    [
        'import sys\nopen(sys.argv[2], "w").write(sys.argv[1] + "\\n")\n',
        "import sys\nprint(sys.argv[1])\n",
        'import os\nos.chmod("/etc/passwd", 0o600)\n',
    ],
)
def test_a_script_that_writes_prints_or_changes_a_mode_runs_the_call(tryout, script):
    assert tryout.run("putword", script, {CALL: "color"}) == {"putword ruby-red-9 color.txt": None}, (
        "tried on the program's own arguments, without the shell's redirect"
    )


@pytest.mark.parametrize(
    ("script", "failure"),
    [
        ('import sys\nopen(sys.argv[3], "w")\n', "exited with status 1"),
        ("import sys\nsys.argv[3]\n", "IndexError: list index out of range"),
        (
            'import sys\nprint("putword: cannot do that", file=sys.stderr)\n',
            "printed nothing and changed no file (its errors: putword: cannot do that)",
        ),
        ("import time\ntime.sleep(60)\n", "did not finish in 20 s"),
        ('open("/etc/passwd", "r+").close()\n', "printed nothing and changed no file"),
        (
            "import sys\nprint(tuple(sys.argv[1:2]))\n",
            "printed a python tuple (`('ruby-red-9',)`), not the program's plain output",
        ),
        (
            'print("Error: near \\".\\": syntax error")\n',
            'printed an error instead of a result: Error: near ".": syntax error',
        ),
    ],
)
def test_a_script_that_crashes_hangs_or_prints_no_result_fails_the_call(tryout, script, failure):
    [found] = tryout.run("putword", script, {CALL: "color"}).values()
    assert found.startswith("`putword ruby-red-9 color.txt` ") and failure in found, found


def test_a_call_from_an_unknown_task_or_cut_short_is_not_tried(tryout):
    calls = {CALL: "no-such-task", "putword a[... 300 chars cut ...]b x.txt": "color"}
    assert tryout.run("putword", "print(1)\n", calls) == {}


READ_CALL = "wc -l /etc/passwd"
"""A call naming a file that is there: the program's work is on that file."""


@pytest.mark.parametrize(
    "script",
    [
        "import sys\nprint(len(open(sys.argv[2]).readlines()), sys.argv[2])\n",
        'import sqlite3, sys\nsqlite3.connect(sys.argv[2]).close()\nprint("0 rows")\n',
        'import os, sys\nos.execvp("/usr/bin/wc", ["wc", *sys.argv[1:]])\n',
    ],
)
def test_a_script_that_opens_the_file_its_call_names_runs_the_call(tryout, script):
    assert tryout.run("wc", script, {READ_CALL: "color"}) == {READ_CALL: None}


def test_a_script_that_prints_without_opening_the_file_its_call_names_fails_the_call(tryout):
    [found] = tryout.run(
        "wc", 'import sys\nprint("Header")\nprint(" ".join(sys.argv[1:]))\n', {READ_CALL: "color"}
    ).values()
    assert found == (
        "`wc -l /etc/passwd` never opened `/etc/passwd`, the file it names: a stand-in does the program's work on "
        "the files it is given"
    )


QUERY_CALL = "query /etc/passwd 'SELECT name FROM users'"
"""A call with a query: the program's result depends on it."""


def test_a_script_that_prints_the_same_whatever_the_query_fails_the_call(tryout):
    same_whatever = "import sys\nprint(len(open(sys.argv[1]).readlines()))\n"
    [found] = tryout.run("query", same_whatever, {QUERY_CALL: "color"}).values()
    assert found == (
        f"`{QUERY_CALL}` printed the same without `SELECT name FROM users`: a stand-in does what the call asks, "
        "not the same whatever it asks"
    )


def test_a_script_whose_output_depends_on_the_query_runs_the_call(tryout):
    answers = "import sys\nlines = open(sys.argv[1]).readlines()\nprint(len(lines), *sys.argv[2:3])\n"
    assert tryout.run("query", answers, {QUERY_CALL: "color"}) == {QUERY_CALL: None}


def test_a_piped_call_feeds_the_script_what_the_command_before_the_pipe_prints(tryout):
    needs_input = 'import sys\nlines = sys.stdin.readlines()\nassert lines, "no input"\nprint(len(lines))\n'
    calls = {"cat /etc/passwd | count-lines > /tmp/n.txt": "color", "echo $rows | count-lines": "color"}
    tried = tryout.run("count-lines", needs_input, calls)
    assert tried["cat /etc/passwd | count-lines"] is None
    assert "AssertionError: no input" in tried["count-lines"], "a shell variable of the agent's is not there to feed it"


SUDO_CALL = "sudo ls /etc"
"""A call that names an installed program as its first argument: the program runs it."""


@pytest.mark.parametrize(
    "script",
    [
        "import os, sys\nos.execvp(sys.argv[1], sys.argv[1:])\n",
        "import subprocess, sys\nsys.exit(subprocess.run(sys.argv[1:]).returncode)\n",
    ],
)
def test_a_script_that_starts_the_program_its_call_names_runs_the_call(tryout, script):
    assert tryout.run("sudo", script, {SUDO_CALL: "color"}) == {SUDO_CALL: None}


def test_a_script_that_only_says_it_ran_the_program_its_call_names_fails_the_call(tryout):
    says = 'import sys\nprint("Executing command:", " ".join(sys.argv[1:]))\n'
    [found] = tryout.run("sudo", says, {SUDO_CALL: "color"}).values()
    assert found.startswith("`sudo ls /etc` never started `ls`, the installed program it names"), found


@pytest.mark.parametrize(
    "script",
    [
        'import subprocess, sys\nprint(subprocess.run(["sudo", *sys.argv[1:]], capture_output=True, '
        "text=True).stdout)\n",
        'import os, sys\nos.system("sudo " + " ".join(sys.argv[1:]))\n',
        'import os, sys\nos.execvp("sudo", sys.argv)\n',
    ],
)
def test_a_script_that_hands_the_call_to_the_program_it_stands_in_for_fails_the_call(tryout, script):
    [found] = tryout.run("sudo", script, {SUDO_CALL: "color"}).values()
    assert found is not None and found.startswith("`sudo ls /etc` starts `sudo`, which here is this very script"), found


def test_a_call_whose_sandbox_cannot_be_made_counts_as_failed_not_as_run(tmp_path):
    import shutil

    suite = tmp_path / "tasks"
    shutil.copytree(world.TASKS / "color", suite / "color")
    (suite / "color" / "environment" / "Dockerfile").write_text("FROM python:3.11-slim-bookworm\nRUN exit 3\n")
    broken = SandboxTryout(get_backend(SandboxConfig()), load_suite(suite).tasks)

    [found] = broken.run("putword", "import sys\nprint(sys.argv[1])\n", {CALL: "color"}).values()
    assert found.startswith("`putword ruby-red-9 color.txt` could not be tried, so it counts as failed"), found


def test_a_script_runs_in_the_task_s_container_and_never_on_this_machine(tryout, tmp_path):
    """The script writes a file at a path of this machine's (the test's own folder) before it prints its word: the call
    ran, and the file is not here."""
    marker = tmp_path / "the-script-ran-here"
    script = (
        f'import os, sys\nos.makedirs({str(tmp_path)!r}, exist_ok=True)\nopen({str(marker)!r}, "w").write("x")\n'
        "print(sys.argv[1])\n"
    )
    assert tryout.run("putword", script, {CALL: "color"}) == {"putword ruby-red-9 color.txt": None}
    assert not marker.exists()

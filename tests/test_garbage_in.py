"""Garbage in: the harness and task loaders, the action parser and the structured-output parser, fed random and
mutated inputs by hypothesis, either accept the input or refuse it with one line of our own error type (a reply the
agent cannot run is a format error the loop records): never a traceback."""

import shutil
import tempfile
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness_evo import world
from harness_evo.agent.actions import programs, runs_program, says_done
from harness_evo.errors import TaskError, UserError
from harness_evo.evolve.critic import Review
from harness_evo.evolve.proposer import ProposerReply
from harness_evo.harness import Harness
from harness_evo.harness.actions import FormatError, parse_bash_block
from harness_evo.llm import structured
from harness_evo.taskset import load_suite, load_task

ROOT = Path(__file__).parents[1]
HARNESS = Harness.load(ROOT / "harnesses" / "bash-agent")
TASK = world.TASKS / "color"
SUITE = TASK.parent
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

FRAGMENTS = [
    "{{",
    "}}",
    "{%",
    "%}",
    "{#",
    "#}",
    "[",
    "]",
    "[[",
    "]]",
    "=",
    '"',
    "'",
    "\n",
    "---",
    "```",
    "```bash\n",
    "{",
    "}",
    ":",
    ",",
    "\\",
    "..",
    "/",
    "step_limit",
    "name",
    "description",
    "command",
    "1",
    "-1",
    "1e999",
    "true",
    "null",
    "{{ instruction }}",
    "{% for t in tools %}",
    "{% endfor %}",
    "{{ 1/0 }}",
    "{{ x.y }}",
    "{{ 'a' + 1 }}",
    "{{ tools[99] }}",
    "[agent]",
    "[harness]",
    "[[x]]",
    "edits",
    "ops",
    "\x00",
    "é",
    "\u2028",
    "TASK_DONE",
    "timeout_sec",
    "memory",
    "2G",
    "splits",
    "train",
    "tags",
    "[metadata]",
]
"""Pieces of the formats being parsed (TOML, Jinja, YAML frontmatter, JSON, fenced blocks): random text made of them
reaches deeper than random characters alone."""

garbage = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=25).map("".join)


@st.composite
def mutated(draw, text: str) -> str:
    """`text` with a slice replaced by garbage, cut short, or doubled."""
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 40)))
    how = draw(st.sampled_from(["replace", "cut", "double"]))
    if how == "cut":
        return text[:start]
    if how == "double":
        return text[:end] + text[start:]
    return text[:start] + draw(garbage) + text[end:]


def one_line(error: Exception) -> str:
    message = str(error)
    assert message.strip() and "\n" not in message.strip(), f"not one line: {message!r}"
    return message


@st.composite
def harness_components(draw) -> dict[str, str]:
    components = dict(HARNESS.components)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(
            st.sampled_from(sorted(components))
            | st.sampled_from(["prompts/confirm_done.md.j2", "examples/a.md", "tools/x/tool.toml", "skills/y/SKILL.md"])
        )
        action = draw(st.sampled_from(["mutate", "garbage", "delete"]))
        if action == "delete":
            components.pop(path, None)
        else:
            components[path] = draw(mutated(components.get(path, ""))) if action == "mutate" else draw(garbage)
    return components


@FAST
@given(harness_components())
def test_a_mutated_harness_loads_or_is_refused_with_one_line(components: dict[str, str]):
    try:
        harness = Harness(components)
    except UserError as e:
        one_line(e)
        return
    harness.render("system.md.j2")  # a harness that loads renders


@FAST
@given(st.dictionaries(st.sampled_from(sorted(HARNESS.components)), st.binary(max_size=60), max_size=3))
def test_a_harness_folder_with_files_of_random_bytes_loads_or_is_refused_with_one_line(files: dict[str, bytes]):
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(shutil.copytree(ROOT / "harnesses" / "bash-agent", Path(scratch) / "h"))
        for relative, data in files.items():
            (folder / relative).write_bytes(data)
        try:
            Harness.load(folder)
        except UserError as e:
            one_line(e)


TASK_FILES = ("task.toml", "instruction.md", "tests/test.sh", "environment/Dockerfile")


@st.composite
def task_files(draw) -> dict[str, bytes | None]:
    """Some files of a valid task replaced by mutated text, random bytes, or nothing (removed)."""
    changes = {}
    for name in draw(st.lists(st.sampled_from(TASK_FILES), min_size=1, max_size=2, unique=True)):
        text = (TASK / name).read_text()
        changes[name] = draw(st.one_of(mutated(text).map(str.encode), st.binary(max_size=40), st.none()))
    return changes


def write_changed(folder: Path, changes: dict[str, bytes | None]) -> None:
    for name, data in changes.items():
        if data is None:
            (folder / name).unlink()
        else:
            (folder / name).write_bytes(data)


@FAST
@given(task_files())
@example({"task.toml": b"\xff\xfe"})
@example({"task.toml": b"[environment]\nmemory = [1]\n"})
def test_a_mutated_task_loads_or_is_refused_with_one_line(changes: dict[str, bytes | None]):
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(shutil.copytree(TASK, Path(scratch) / "color"))
        write_changed(folder, changes)
        try:
            task = load_task(folder)
        except TaskError as e:
            one_line(e)
            return
        assert task.id == "color"


@st.composite
def suite_toml(draw) -> bytes:
    text = (SUITE / "suite.toml").read_text()
    return draw(
        st.one_of(
            mutated(text).map(str.encode),
            st.binary(max_size=40),
            st.sampled_from(
                [
                    b"splits = 3\n",
                    b"[splits]\ntrain = 3\n",
                    b'suite = "x"\n',
                    b"[splits]\ntrain = [1, 2]\n",
                    b"[suite]\nname = 1\n",
                ]
            ),
        )
    )


@pytest.mark.slow
@FAST
@given(suite_toml())
def test_a_mutated_suite_toml_loads_or_is_refused_with_one_line(data: bytes):
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(shutil.copytree(SUITE, Path(scratch) / "suite"))
        (folder / "suite.toml").write_bytes(data)
        try:
            suite = load_suite(folder)
        except TaskError as e:
            one_line(e)
            return
        assert set(suite.tasks) == {"color", "fruit", "metal", "stone", "tree"}
        assert all(isinstance(task_id, str) for ids in suite.splits.values() for task_id in ids)


REPLY = "I will look first.\n```bash\nls -la /app && cat notes.txt | grep -c x\n```\n"


@FAST
@given(st.one_of(garbage, mutated(REPLY)))
def test_any_reply_is_a_command_or_a_format_error(reply: str):
    try:
        command = parse_bash_block(reply)
    except FormatError as e:
        one_line(e)
        return
    assert command.strip() and command in reply


@FAST
@given(st.one_of(garbage, mutated(REPLY), st.text()))
def test_any_command_names_the_programs_it_runs_without_failing(command: str):
    found = programs(command)
    assert all(isinstance(program, str) and program for program in found)
    says_done(command)
    for program in found[:3]:
        runs_program(command, program)


PROPOSAL = (
    '{"edits": [{"rationale": "r", "prediction": "p", "ops": [{"op": "replace", "path": "prompts/system.md.j2", '
    '"old": "a", "new": "b"}]}]}'
)
REVIEW = '{"task_specific": false, "addresses_pattern": true, "reasons": ["fine"]}'


replies = st.one_of(garbage, mutated(PROPOSAL), mutated(REVIEW), st.text(), st.just("[" * 5000), st.just("{" * 5000))


@FAST
@given(st.tuples(st.sampled_from([ProposerReply, Review]), replies))
def test_any_model_reply_is_the_output_or_one_line_saying_what_is_wrong(case):
    output, text = case
    try:
        parsed = structured.parse(text, output)
    except structured.InvalidOutput as e:
        one_line(e)
        return
    assert isinstance(parsed, output)


def test_the_unmutated_inputs_are_accepted():
    """The properties above would pass on a loader that refuses everything: the seeds themselves must load."""
    assert Harness(dict(HARNESS.components)).hash == HARNESS.hash
    assert load_task(TASK).id == "color"
    assert "train" in load_suite(SUITE).splits
    assert parse_bash_block(REPLY).startswith("ls -la")
    assert programs(parse_bash_block(REPLY)) == ["ls", "cat", "grep"]
    assert structured.parse(PROPOSAL, ProposerReply).edits and structured.parse(REVIEW, Review).addresses_pattern
    assert tomllib.loads((TASK / "task.toml").read_text())

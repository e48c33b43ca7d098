"""The harness folder: loads, hashes, renders, applies edits; every malformed folder is one clear line."""

import shutil
from pathlib import Path

import pytest

from harness_evo.errors import HarnessError, UserError
from harness_evo.harness import Edit, EditError, Harness, Replace, Write

DEFAULT = Path(__file__).parents[1] / "harnesses" / "bash-agent"


@pytest.fixture
def harness_dir(tmp_path: Path) -> Path:
    return Path(shutil.copytree(DEFAULT, tmp_path / "h"))


def test_default_harness_loads_with_a_tool_and_a_skill():
    harness = Harness.load(DEFAULT)
    assert harness.name == "bash-agent"
    assert [tool.name for tool in harness.tools] == ["view"]
    assert harness.skills and harness.skills[0].description
    system = harness.render("system.md.j2")
    assert "TASK_DONE" in system and "`view`" in system and harness.skills[0].path in system
    assert "Count the lines" in harness.render("instance.md.j2", instruction="Count the lines")


def test_hash_is_stable_and_changes_with_any_component(harness_dir: Path):
    first, again = Harness.load(harness_dir), Harness.load(harness_dir)
    assert first.hash == again.hash
    (harness_dir / "prompts" / "instance.md.j2").write_text("Do this: {{ instruction }}\n")
    assert Harness.load(harness_dir).hash != first.hash


def test_save_then_load_round_trips(harness_dir: Path, tmp_path: Path):
    harness = Harness.load(harness_dir)
    copy = Harness.load(harness.save(tmp_path / "copy"))
    assert copy.components == harness.components and copy.hash == harness.hash


def test_edit_produces_a_new_harness_and_leaves_the_parent_alone():
    parent = Harness.load(DEFAULT)
    edit = Edit(
        ops=[
            Replace(path="prompts/instance.md.j2", old="Start.", new="Inspect first, then act."),
            Write(path="prompts/confirm_done.md.j2", text="Show the result you produced, then say TASK_DONE again."),
        ]
    )
    child = parent.apply(edit)
    assert "Inspect first" in child.render("instance.md.j2", instruction="x")
    assert child.has_template("confirm_done.md.j2") and not parent.has_template("confirm_done.md.j2")
    assert child.hash != parent.hash


def test_edit_whose_old_text_is_absent_is_refused():
    with pytest.raises(EditError, match="occurs 0 times"):
        Harness.load(DEFAULT).apply(Edit(ops=[Replace(path="prompts/system.md.j2", old="no such text", new="x")]))


def test_edit_whose_old_text_differs_only_in_case_and_spacing_applies_to_its_one_match():
    parent = Harness.load(DEFAULT)
    child = parent.apply(
        Edit(
            ops=[
                Replace(
                    path="prompts/observation.md.j2",
                    old="exit code:   {{ exit_code }}",
                    new="Exit code: {{ exit_code }} (not 0: the command failed)",
                )
            ]
        )
    )
    assert "Exit code: 1 (not 0: the command failed)" in child.render(
        "observation.md.j2", output="x", exit_code=1, timed_out=False, step=1, steps_left=3
    )
    with pytest.raises(EditError, match="occurs 0 times"):
        parent.apply(Edit(ops=[Replace(path="prompts/system.md.j2", old="BASH", new="sh")]))


@pytest.mark.parametrize("path", ["../escape.md", "/etc/passwd", "skills/../../x"])
def test_unsafe_component_paths_are_refused(path: str):
    with pytest.raises(UserError, match="unsafe path"):
        Edit(ops=[Write(path=path, text="x")])


def mutate(harness_dir: Path, relative: str, text: str | None) -> None:
    path = harness_dir / relative
    if text is None:
        path.unlink()
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize(
    ("relative", "text", "problem"),
    [
        ("harness.toml", None, "missing harness.toml"),
        ("harness.toml", "[harness\nname = 'x'", "harness.toml: bad TOML"),
        (
            "harness.toml",
            "[harness]\nname = 'x'\n[agent]\nstep_limt = 3\n",
            "harness.toml: agent.step_limt: Extra inputs are not permitted",
        ),
        (
            "prompts/instance.md.j2",
            "{{ instructions }}",
            "prompts/instance.md.j2: does not render: 'instructions' is undefined",
        ),
        ("prompts/observation.md.j2", "{% if %}", "prompts/observation.md.j2: does not render"),
        (
            "prompts/instance.md.j2",
            "{{ instruction }}\nLast output: {{ output }}",
            "prompts/instance.md.j2: does not render: 'output' is undefined",
        ),
        (
            "prompts/format_error.md.j2",
            None,
            "prompts/format_error.md.j2: missing, and every harness needs this template",
        ),
        ("tools/view/tool.toml", 'description = "shows files"\n', "tools/view/tool.toml: a tool needs a `command`"),
        (
            "skills/python-instead-of-missing-tools/SKILL.md",
            "---\nname: x\n---\nbody\n",
            "SKILL.md: frontmatter needs a `description`",
        ),
        (
            "skills/python-instead-of-missing-tools/SKILL.md",
            "just text, no frontmatter\n",
            "SKILL.md: missing `---` frontmatter",
        ),
    ],
)
def test_malformed_folder_is_one_line_naming_file_and_problem(
    harness_dir: Path, relative: str, text: str | None, problem: str
):
    mutate(harness_dir, relative, text)
    with pytest.raises(HarnessError) as error:
        Harness.load(harness_dir)
    message = str(error.value)
    assert problem in message and "\n" not in message
    assert str(harness_dir) in message


def test_a_binary_file_outside_skill_and_tool_folders_and_a_missing_folder_are_clear_errors(
    harness_dir: Path, tmp_path: Path
):
    with pytest.raises(HarnessError, match="no such directory"):
        Harness.load(tmp_path / "nope")
    (harness_dir / "prompts" / "blob.bin").write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(
        HarnessError, match="prompts/blob.bin: not a text file; binary files may only be in skill and tool folders"
    ):
        Harness.load(harness_dir)

"""Skills and Claude Code, in and out: round trips that need no base harness, what Claude Code itself reads, and the
import of a Claude Code project (CLAUDE.md, .claude/skills, .claude/agents, .claude/commands)."""

import json
from pathlib import Path

import pytest
import skills_ref
import yaml

from harness_evo.cli import main
from harness_evo.errors import UserError
from harness_evo.harness import Harness
from harness_evo.harness.examples import Example, Turn, render_example
from harness_evo.harness.formats import export_harness, import_harness
from harness_evo.harness.formats.claude_code import without_loop_rules
from harness_evo.harness.frontmatter import split_frontmatter
from harness_evo.harness.settings_edit import set_setting

BASH_AGENT = Path(__file__).parents[1] / "harnesses" / "bash-agent"


def evolved() -> Harness:
    """The default harness after some evolution: a worked example, a second tool, a confirm prompt and moved knobs."""
    default = Harness.load(BASH_AGENT)
    toml = default.components["harness.toml"]
    for section, key, value in [
        ("agent", "examples", 1),
        ("agent", "step_limit", 18),
        ("agent", "confirm_done", True),
        ("model", "temperature", 0.3),
    ]:
        toml = set_setting(toml, section, key, value)
    example = Example(
        name="greeting",
        task="greeting",
        category="files",
        source="rollout",
        instruction="Create /app/hello.txt containing: hello there",
        turns=[
            Turn(reply="```bash\necho 'hello there' > /app/hello.txt\n```", observation="ok"),
            Turn(reply="```bash\necho TASK_DONE\n```", observation="TASK_DONE"),
        ],
    )
    return Harness(
        default.components
        | {
            "harness.toml": toml,
            "examples/greeting.md": render_example(example),
            "prompts/confirm_done.md.j2": (
                "Show the file you made (`cat` it) and check it against the task. Then say TASK_DONE again.\n"
            ),
            "tools/count-lines/tool.toml": (
                'description = "count-lines FILE: how many lines FILE has."\ncommand = "sh $TOOL_DIR/count.sh"\n'
            ),
            "tools/count-lines/count.sh": '#!/bin/sh\nwc -l < "$1"\n',
            "skills/check-before-done/SKILL.md": "---\nname: check-before-done\n"
            "description: Look at what you made before you finish.\n---\n"
            "Run `cat FILE` on what you produced; only then finish.\n",
        }
    )


@pytest.mark.parametrize("fmt", ["skills", "claude-code"])
@pytest.mark.parametrize("make", [lambda: Harness.load(BASH_AGENT), evolved], ids=["default", "evolved"])
def test_a_round_trip_gives_the_same_harness_back_without_a_base(fmt: str, make, tmp_path: Path):
    harness = make()
    export_harness(harness, fmt, tmp_path / "out")
    imported = import_harness(fmt, tmp_path / "out", tmp_path / "back", base=None)
    back = Harness.load(tmp_path / "back")
    assert back.changed_paths(harness) == [] and back.hash == harness.hash
    assert back.name == harness.name and back.agent == harness.agent and back.sampling == harness.sampling
    assert any("from the export itself" in note for note in imported.notes)
    if fmt == "claude-code":  # the project's skills alone, as `import skills` finds them, carry the harness too
        import_harness("skills", tmp_path / "out", tmp_path / "skills-back", base=None)
        assert Harness.load(tmp_path / "skills-back").hash == harness.hash


def test_every_exported_skill_passes_the_reference_validator(tmp_path: Path):
    for fmt, skills in [("skills", "."), ("claude-code", ".claude/skills")]:
        export_harness(evolved(), fmt, tmp_path / fmt)
        folders = [path.parent for path in (tmp_path / fmt / skills).glob("*/SKILL.md")]
        assert len(folders) >= 4
        assert {folder.name: skills_ref.validate(folder) for folder in folders} == {
            folder.name: [] for folder in folders
        }


def test_claude_code_export_writes_what_claude_code_reads_without_our_loop_rules(tmp_path: Path):
    harness = evolved()
    export_harness(harness, "claude-code", tmp_path / "project")
    project = tmp_path / "project"
    claude_md = (project / "CLAUDE.md").read_text()
    assert "completes tasks in a Linux terminal" in claude_md and "Commands cannot be interactive" in claude_md
    assert (
        "## Before you say you are done\n\nShow the file you made (`cat` it) and check it against the task."
        in claude_md
    )
    for loop_rule in ("TASK_DONE", "fenced bash block", "reply", "like any command"):
        assert loop_rule not in claude_md

    tool = (project / ".claude" / "skills" / "count-lines" / "SKILL.md").read_text()
    assert "sh ${CLAUDE_SKILL_DIR}/count.sh ARGUMENTS" in tool and ".claude/skills/" not in tool

    front, body = split_frontmatter((project / ".claude" / "agents" / "bash-agent.md").read_text(), "agent")
    assert front["name"] == "bash-agent" and front["maxTurns"] == 18 and "TASK_DONE" not in front["description"]
    assert sorted(front["skills"]) == sorted(p.name for p in (project / ".claude" / "skills").iterdir())
    assert "completes tasks in a Linux terminal" in body and "TASK_DONE" not in body

    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings == {"env": {"BASH_DEFAULT_TIMEOUT_MS": "30000", "BASH_MAX_OUTPUT_LENGTH": "2000"}}
    notes = (project / "EXPORT.md").read_text()
    assert "«Every reply must contain exactly one fenced bash block" in notes and "«Then say TASK_DONE again.»" in notes
    assert "temperature" in notes


def test_a_claude_code_project_imports_its_skills_subagents_commands_and_claude_md(tmp_path: Path):
    project = tmp_path / "project"
    (project / ".claude" / "skills" / "pdf-text" / "scripts").mkdir(parents=True)
    (project / ".claude" / "skills" / "pdf-text" / "SKILL.md").write_text(
        "---\nname: pdf-text\ndescription: Get the text out of a PDF.\n---\n"
        "Run `python3 ${CLAUDE_SKILL_DIR}/scripts/text.py FILE`.\n"
    )
    (project / ".claude" / "skills" / "pdf-text" / "scripts" / "text.py").write_text("print('text')\n")
    (project / ".claude" / "agents").mkdir()
    (project / ".claude" / "agents" / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a change for bugs.\ntools: Read, Grep\nmodel: sonnet\n---\n"
        "You review code.\n"
    )
    (project / ".claude" / "commands" / "git").mkdir(parents=True)
    (project / ".claude" / "commands" / "git" / "fix-issue.md").write_text(
        "Fix the issue $ARGUMENTS, then run the tests.\n"
    )
    (project / ".claude" / "commands" / "___.md").write_text("No letters in my name.\n")
    (project / "CLAUDE.md").write_text("# Project\n\nThe data lives in /srv/data; never delete it.\n")

    imported = import_harness("claude-code", project, tmp_path / "harness", base=Harness.load(BASH_AGENT))

    harness = Harness.load(tmp_path / "harness")
    assert harness.name == "project" and harness.agent == Harness.load(BASH_AGENT).agent
    system = harness.render("system.md.j2")
    assert system.startswith("You are an agent that completes tasks") and system.endswith(
        "The data lives in /srv/data; never delete it."
    )
    skills = {skill.name: skill for skill in harness.skills}
    assert set(skills) == {"pdf-text", "reviewer", "git-fix-issue", "python-instead-of-missing-tools"}
    assert (
        skills["reviewer"].description == "Reviews a change for bugs."
        and skills["reviewer"].body == "You review code.\n"
    )
    assert skills["git-fix-issue"].description == "Fix the issue $ARGUMENTS, then run the tests."
    assert any("subagent reviewer" in note and "model, tools not carried" in note for note in imported.notes)
    assert any("command git/fix-issue" in note and "$ARGUMENTS" in note for note in imported.notes)
    assert any(note.startswith("refused command ___: ") for note in imported.notes)
    installed = harness.files_for_sandbox()["/opt/harness/skills/pdf-text/SKILL.md"]
    assert "python3 /opt/harness/skills/pdf-text/scripts/text.py FILE" in installed
    assert "/opt/harness/skills/pdf-text/scripts/text.py" in harness.files_for_sandbox()

    import_harness("skills", project, tmp_path / "skills-only", base=Harness.load(BASH_AGENT))
    assert "skills/pdf-text/scripts/text.py" in Harness.load(tmp_path / "skills-only").components


def test_a_claude_md_changed_after_the_export_is_named_in_a_note(tmp_path: Path):
    export_harness(Harness.load(BASH_AGENT), "claude-code", tmp_path / "project")
    with (tmp_path / "project" / "CLAUDE.md").open("a") as claude_md:
        claude_md.write("\nAlways run the tests.\n")
    imported = import_harness("claude-code", tmp_path / "project", tmp_path / "back", base=None)
    assert Harness.load(tmp_path / "back").hash == Harness.load(BASH_AGENT).hash
    assert any(note.startswith("CLAUDE.md was changed after the export") for note in imported.notes)


def test_import_claude_code_on_the_command_line_needs_no_base_for_an_export(tmp_path: Path, monkeypatch, capsys):
    export_harness(evolved(), "claude-code", tmp_path / "project")
    monkeypatch.chdir(tmp_path)  # no harnesses/bash-agent here to fall back on
    monkeypatch.setattr("sys.argv", ["harness-evo", "import", "claude-code", "project", "--out", "back"])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 0
    assert Harness.load(tmp_path / "back").hash == evolved().hash
    assert f"wrote harness bash-agent ({evolved().short_hash}) to back" in capsys.readouterr().out

    (tmp_path / "notes").mkdir()
    monkeypatch.setattr("sys.argv", ["harness-evo", "import", "claude-code", "notes", "--out", "other"])
    with pytest.raises(SystemExit) as exit_:
        main()
    out = capsys.readouterr()
    assert exit_.value.code != 0 and "not a Claude Code project (no CLAUDE.md, no .claude/)" in out.err + out.out
    assert "Traceback" not in out.err and not (tmp_path / "other").exists()


def test_skills_without_prompts_and_without_a_base_are_refused_in_one_line(tmp_path: Path):
    (tmp_path / "skills" / "notes").mkdir(parents=True)
    (tmp_path / "skills" / "notes" / "SKILL.md").write_text("---\nname: notes\ndescription: Notes.\n---\nBody.\n")
    with pytest.raises(UserError, match="skills carry no prompts or agent settings; pass --base HARNESS"):
        import_harness("skills", tmp_path / "skills", tmp_path / "out", base=None)
    assert not (tmp_path / "out").exists()


def test_the_subagent_frontmatter_is_yaml_claude_code_reads(tmp_path: Path):
    export_harness(Harness.load(BASH_AGENT), "claude-code", tmp_path / "project")
    text = (tmp_path / "project" / ".claude" / "agents" / "bash-agent.md").read_text()
    front = yaml.safe_load(text.split("---\n")[1])
    assert set(front) <= {
        "name",
        "description",
        "tools",
        "disallowedTools",
        "model",
        "permissionMode",
        "maxTurns",
        "skills",
    }
    assert isinstance(front["skills"], list) and isinstance(front["maxTurns"], int)


def test_only_the_sentences_about_our_loop_are_left_out_of_claude_md():
    text = (
        "The API server replies with JSON; parse it with python3. Every reply must hold one fenced bash block.\n\n"
        "Tips:\n- Use `jq` when it is installed.\n- Print TASK_DONE when you are done.\n\n```bash\necho TASK_DONE\n"
        "```\n"
    )
    kept, dropped = without_loop_rules(text)
    assert kept == "The API server replies with JSON; parse it with python3.\n\nTips:\n- Use `jq` when it is installed."
    assert dropped == [
        "Every reply must hold one fenced bash block.",
        "- Print TASK_DONE when you are done.",
        "```bash\necho TASK_DONE\n```",
    ]

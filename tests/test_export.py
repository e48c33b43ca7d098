"""Export a harness to other agent frameworks' formats and import it back; never write outside the chosen folder."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from harness_evo.errors import HarnessError, UserError
from harness_evo.harness import Edit, Harness, Replace, Write
from harness_evo.harness.formats import Origin, export_harness, frontmatter_problems, import_harness, skill_problems
from harness_evo.harness.formats.agent_skills import skill_name
from harness_evo.harness.settings_edit import set_setting

BASH_AGENT = Path(__file__).parents[1] / "harnesses" / "bash-agent"


SYSTEM = """You are an agent that completes tasks in a Linux terminal.
Every reply must contain exactly one fenced bash block, which is run for you.
When the task is complete, run `echo TASK_DONE`.
{% if tools %}Tools:
{% for tool in tools %}- `{{ tool.name }}`: {{ tool.description }}
{% endfor %}{% endif %}{% if skills %}Skills (read one with `cat PATH`):
{% for skill in skills %}- {{ skill.name }} ({{ skill.path }}): {{ skill.description }}
{% endfor %}{% endif %}"""


@pytest.fixture
def harness() -> Harness:
    """An evolved harness: prompts that use the loop's variables, a tool with a script, two skills."""
    return Harness(
        {
            "harness.toml": '[harness]\nname = "terminal-agent"\ndescription = "Bash blocks, TASK_DONE to finish."\n\n'
            "[agent]\nstep_limit = 20\ncommand_timeout_s = 30\nmax_observation_chars = 3000\n",
            "prompts/system.md.j2": SYSTEM,
            "prompts/instance.md.j2": (
                "Task:\n{{ instruction }}\n\nYou have {{ agent.step_limit }} replies ({{ steps_left }} left). Start.\n"
            ),
            "prompts/observation.md.j2": (
                "{% if timed_out %}Timed out after {{ agent.command_timeout_s }} s.\n{% endif %}"
                'Exit code: {{ exit_code }}\nOutput:\n{{ output if output else "(no output)" }}\n'
            ),
            "prompts/format_error.md.j2": (
                "Your reply was not run: {{ error }}\nReply with one fenced bash block, or `echo TASK_DONE` when "
                "done.\n"
            ),
            "tools/view/tool.toml": (
                'description = "view FILE: print a file with line numbers."\ncommand = "python3 $TOOL_DIR/view.py"\n\n'
                '[parameters]\ntype = "object"\nrequired = ["file"]\n\n[parameters.properties.file]\ntype = "string"\n'
                'description = "Path of the file to show."\n'
            ),
            "tools/view/view.py": (
                "import sys\n\nfor n, line in enumerate(open(sys.argv[1]), 1):\n    print(n, line, end='')\n"
            ),
            "skills/check-before-done/SKILL.md": (
                "---\nname: check-before-done\ndescription: Show the file you made before you say TASK_DONE.\n---\n"
                "Run `cat FILE` on what you produced; only then `echo TASK_DONE`.\n"
            ),
            "skills/python-instead-of-missing-tools/SKILL.md": (
                "---\nname: python-instead-of-missing-tools\n"
                "description: What to use when sqlite3 or jq is missing.\n---\nUse python3.\n"
            ),
        }
    )


def same_harness(a: Harness, b: Harness, paths: list[str]) -> None:
    assert {path: b.components.get(path) for path in paths} == {path: a.components[path] for path in paths}
    assert b.settings == a.settings
    assert [(s.name, s.description, s.body) for s in b.skills] == [(s.name, s.description, s.body) for s in a.skills]


PROMPTS = ["prompts/system.md.j2", "prompts/instance.md.j2", "prompts/observation.md.j2", "prompts/format_error.md.j2"]


def test_native_export_is_a_harness_folder_with_its_provenance(harness: Harness, tmp_path: Path):
    origin = Origin(
        run="evolve-1",
        kind="evolve",
        node=harness.hash,
        status="accepted",
        iteration=4,
        scores={"train": (0.75, 12), "dev": (0.5, 8)},
    )
    export_harness(harness, "native", tmp_path / "out", origin)
    notes = (tmp_path / "out" / "EXPORT.md").read_text()
    (tmp_path / "out" / "EXPORT.md").unlink()
    assert Harness.load(tmp_path / "out").components == harness.components
    assert "evolve-1" in notes and harness.hash in notes and "iteration 4" in notes
    assert "| train | 0.750 | 12 |" in notes and "| dev | 0.500 | 8 |" in notes


def test_a_native_export_loads_as_the_same_harness_and_exports_again(harness: Harness, tmp_path: Path):
    export_harness(harness, "native", tmp_path / "out")
    loaded = Harness.load(tmp_path / "out")
    assert loaded.hash == harness.hash and "EXPORT.md" not in loaded.components
    export_harness(loaded, "native", tmp_path / "again")
    assert Harness.load(tmp_path / "again").hash == harness.hash


@pytest.mark.parametrize(
    "knobs",
    [
        [],
        [("model", "temperature", 0.3)],
        [("agent", "confirm_done", True), ("agent", "step_limit", 18)],
        [
            ("agent", "discovery", True),
            ("agent", "loop_guard", True),
            ("agent", "loop_guard_repeats", 2),
            ("agent", "missing_hint", True),
            ("agent", "discovery_commands", ["ls"]),
        ],
    ],
)
def test_a_mini_swe_agent_round_trip_of_the_default_harness_or_a_knob_edit_of_it_gives_the_same_hash(
    knobs, tmp_path: Path
):
    default = Harness.load(Path(__file__).parents[1] / "harnesses" / "bash-agent")
    toml = default.components["harness.toml"]
    for section, key, value in knobs:
        toml = set_setting(toml, section, key, value)
    harness = Harness({**default.components, "harness.toml": toml})
    export_harness(harness, "mini-swe-agent", tmp_path / "mini")
    import_harness("mini-swe-agent", tmp_path / "mini" / "config.yaml", tmp_path / "back", base=default)
    back = Harness.load(tmp_path / "back")
    assert back.components["harness.toml"] == harness.components["harness.toml"] and back.hash == harness.hash


def test_mini_swe_agent_export_round_trips_prompts_settings_and_skills(harness: Harness, tmp_path: Path):
    export_harness(harness, "mini-swe-agent", tmp_path / "mini")
    imported = import_harness("mini-swe-agent", tmp_path / "mini" / "config.yaml", tmp_path / "back", base=harness)
    back = Harness.load(tmp_path / "back")
    same_harness(harness, back, PROMPTS)
    assert imported.harness.components == back.components
    assert [tool.name for tool in back.tools] == ["view"], (
        "mini-swe-agent has no tools, but the export's tools/ come back"
    )
    notes = (tmp_path / "mini" / "EXPORT.md").read_text()
    assert "tool `view`" in notes and (tmp_path / "mini" / "tools" / "view" / "view.py").is_file()


def test_a_skill_with_a_script_exported_to_mini_swe_agent_names_where_its_script_is_and_comes_back_whole(
    harness: Harness, tmp_path: Path
):
    scripted = Harness(
        harness.components
        | {
            "skills/pdf-text/SKILL.md": (
                "---\nname: pdf-text\ndescription: Get the text out of a PDF.\n---\n"
                "Run `python3 ${CLAUDE_SKILL_DIR}/scripts/text.py FILE`.\n"
            ),
            "skills/pdf-text/scripts/text.py": "# run as python3 ${CLAUDE_SKILL_DIR}/scripts/text.py\nprint('text')\n",
            "skills/notes/SKILL.md": (
                "---\nname: notes\ndescription: Keep notes.\n---\nAppend to ${CLAUDE_SKILL_DIR}/notes.txt.\n"
            ),
        }
    )
    export_harness(scripted, "mini-swe-agent", tmp_path / "mini")
    system = yaml.safe_load((tmp_path / "mini" / "config.yaml").read_text())["agent"]["system_template"]
    assert "python3 /opt/harness/skills/pdf-text/scripts/text.py FILE" in system, (
        "the folded section names the installed script"
    )
    script = tmp_path / "mini" / "skills" / "pdf-text" / "scripts" / "text.py"
    assert script.read_text() == "# run as python3 /opt/harness/skills/pdf-text/scripts/text.py\nprint('text')\n"
    notes = " ".join((tmp_path / "mini" / "EXPORT.md").read_text().split())
    assert "skill `pdf-text`" in notes and "its files (scripts/text.py) are in skills/pdf-text/" in notes
    assert (
        "skill `notes`: its section names its folder as /opt/harness/skills/notes" in notes
        and "which holds no file besides SKILL.md" in notes
    )
    import_harness("mini-swe-agent", tmp_path / "mini" / "config.yaml", tmp_path / "back", base=harness)
    back = Harness.load(tmp_path / "back")
    skills = {path: text for path, text in scripted.components.items() if path.startswith("skills/")}
    assert {path: back.components.get(path) for path in skills} == skills, (
        "the script and its ${CLAUDE_SKILL_DIR} come back"
    )


def test_mini_swe_agent_export_carries_the_sampling_settings_as_model_kwargs_and_back(harness: Harness, tmp_path: Path):
    toml = harness.components["harness.toml"] + '\n[model]\ntemperature = 0.3\nmax_tokens = 256\nstop = ["</cmd>"]\n'
    sampled = Harness({**harness.components, "harness.toml": toml})
    export_harness(sampled, "mini-swe-agent", tmp_path / "mini")
    config = yaml.safe_load((tmp_path / "mini" / "config.yaml").read_text())
    assert config["model"]["model_kwargs"] == {"temperature": 0.3, "max_tokens": 256, "stop": ["</cmd>"]}

    import_harness("mini-swe-agent", tmp_path / "mini" / "config.yaml", tmp_path / "back", base=harness)
    back = Harness.load(tmp_path / "back")
    assert back.sampling == sampled.sampling and back.agent == sampled.agent


def run_mini(config_file: Path, reply: str, task: str, step_limit: int) -> list[dict]:
    """Run mini-swe-agent, loaded with its own config loader, on `task` with a model that always gives `reply`."""
    from minisweagent.agents import get_agent
    from minisweagent.config import get_config_from_spec
    from minisweagent.environments import get_environment
    from minisweagent.models import get_model

    config = get_config_from_spec(config_file)
    model = get_model(
        config={**config["model"], "model_name": "openai/gpt-4o-mini", "model_kwargs": {"mock_response": reply}}
    )
    environment = get_environment(config["environment"], default_type="local")
    agent = get_agent(model, environment, {**config["agent"], "step_limit": step_limit}, default_type="default")
    agent.run(task)
    return agent.messages


def test_mini_swe_agent_runs_the_export_with_our_prompts(harness: Harness, tmp_path: Path):
    export_harness(harness, "mini-swe-agent", tmp_path / "mini")
    config_file = tmp_path / "mini" / "config.yaml"

    messages = run_mini(config_file, "Looking.\n```bash\nprintf 'hello\\n'\n```", "Say hello.", step_limit=2)
    system, instance, _, observation = (m["content"] for m in messages[:4])
    assert "exactly one fenced bash block" in system and "## Skill: check-before-done" in system
    assert "only then `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`" in system  # folded skill, in mini-swe-agent's terms
    assert "mini-swe-agent 2" in (tmp_path / "mini" / "EXPORT.md").read_text()
    assert instance == "Task:\nSay hello.\n\nYou have 2 replies (2 left). Start."
    assert observation == "Exit code: 0\nOutput:\nhello\n"
    assert messages[-1]["extra"]["exit_status"] == "LimitsExceeded"

    messages = run_mini(config_file, "I think it is done.", "Say hello.", step_limit=1)
    assert messages[2]["content"].startswith("Your reply was not run: Expected exactly 1 action, found 0.")

    messages = run_mini(
        config_file, "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```", "Say hello.", step_limit=3
    )
    assert messages[-1]["extra"]["exit_status"] == "Submitted"


def test_the_default_harness_exported_to_mini_swe_agent_asks_for_the_marker_where_mini_looks_for_it(tmp_path: Path):
    export_harness(Harness.load(BASH_AGENT), "mini-swe-agent", tmp_path / "mini")
    system = yaml.safe_load((tmp_path / "mini" / "config.yaml").read_text())["agent"]["system_template"]
    assert "prints COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT as its first line" in system and "last line" not in system
    messages = run_mini(
        tmp_path / "mini" / "config.yaml",
        "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
        "Say hello.",
        step_limit=3,
    )
    assert messages[-1]["extra"]["exit_status"] == "Submitted"


def test_mini_swe_agent_observation_is_cut_to_the_harness_output_cap(harness: Harness, tmp_path: Path):
    small = harness.apply(
        Edit(ops=[Replace(path="harness.toml", old="max_observation_chars = 3000", new="max_observation_chars = 100")])
    )
    export_harness(small, "mini-swe-agent", tmp_path / "mini")
    messages = run_mini(tmp_path / "mini" / "config.yaml", "```bash\nseq 1 1000\n```", "Count.", step_limit=1)
    observation = messages[3]["content"]
    assert "characters cut ...]" in observation and observation.startswith("Exit code: 0\nOutput:\n1\n2\n")
    assert len(observation) < 300 and observation.rstrip().endswith("1000")


def minisweagent_config(name: str) -> Path:
    from minisweagent.config import builtin_config_dir

    return next(builtin_config_dir.rglob(f"{name}.yaml"))


def test_import_of_a_hand_written_mini_swe_agent_config(tmp_path: Path):
    config = yaml.safe_load(minisweagent_config("mini_textbased").read_text())
    config["model"] |= {
        "format_error_template": "Format error: {{ error }}\nReply with one ```mswea_bash_command block.",
        "model_class": "litellm",
    }
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(config))

    imported = import_harness(
        "mini-swe-agent", tmp_path / "mine.yaml", tmp_path / "harness", base=Harness.load(BASH_AGENT)
    )

    harness = Harness.load(tmp_path / "harness")
    instance = harness.render("instance.md.j2", instruction="Fix the bug in app.py.")
    assert "Please solve this issue: Fix the bug in app.py." in instance
    assert "```bash\nls -la\n```" in instance and "mswea_bash_command" not in instance
    assert "echo TASK_DONE" in instance and "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" not in instance
    observation = harness.render("observation.md.j2", output="42\n", exit_code=3, timed_out=False)
    assert "<returncode>3</returncode>" in observation and "<output>\n42" in observation
    assert harness.render("format_error.md.j2", error="No bash block.").startswith("Format error: No bash block.")
    assert harness.name == "mine" and harness.agent.action_format == "bash-block"
    assert any("agent.cost_limit" in note for note in imported.notes)
    assert any("agent.step_limit 0" in note for note in imported.notes)
    assert any("model_class litellm makes native tool calls" in note for note in imported.notes)


def test_every_config_shipped_with_mini_swe_agent_imports_and_runs_in_our_loop(tmp_path: Path):
    from minisweagent.config import builtin_config_dir

    base, imported = Harness.load(BASH_AGENT), []
    for config in sorted(builtin_config_dir.rglob("*.yaml")):
        out = tmp_path / config.stem
        if set(yaml.safe_load(config.read_text())) <= {"environment", "model", "run"}:  # an overlay of another config
            with pytest.raises(UserError, match="an overlay that `mini -c BASE"):
                import_harness("mini-swe-agent", config, out, base=base)
            continue
        import_harness("mini-swe-agent", config, out, base=base)
        harness = Harness.load(out)
        observation = harness.render(
            "observation.md.j2",
            output="42\n",
            exit_code=0,
            timed_out=False,
            step=1,
            steps_left=9,
            elapsed_s=12.5,
            time_limit_s=600.0,
        )
        assert "42" in observation
        assert harness.render("format_error.md.j2", error="no fenced bash block found.")
        assert "```bash" in harness.render(
            "instance.md.j2", instruction="Fix it.", step=0, steps_left=9
        ) + harness.render("system.md.j2")
        imported.append(config.stem)
    assert {"mini", "default", "mini_textbased", "swebench", "swebench_xml"} <= set(imported)
    xml = Harness.load(tmp_path / "swebench_xml").render("instance.md.j2", instruction="Fix it.", step=0, steps_left=9)
    assert "mswea_bash_command" not in xml and "```bash\nls -la\n```" in xml


def test_import_refuses_what_harness_evo_cannot_express(tmp_path: Path):
    base = Harness.load(BASH_AGENT)
    config = yaml.safe_load(minisweagent_config("mini_textbased").read_text())
    config["model"]["format_error_template"] = "Error after {{ elapsed_minutes }} minutes."
    (tmp_path / "minutes.yaml").write_text(yaml.safe_dump(config))
    with pytest.raises(UserError, match=r"format_error_template uses `elapsed_minutes`"):
        import_harness("mini-swe-agent", tmp_path / "minutes.yaml", tmp_path / "a", base=base)
    config["model"] |= {"format_error_template": "{{ error }}", "action_regex": r"ACTION: (.*)"}
    (tmp_path / "regex.yaml").write_text(yaml.safe_dump(config))
    with pytest.raises(UserError, match="action_regex .* is not a fenced code block"):
        import_harness("mini-swe-agent", tmp_path / "regex.yaml", tmp_path / "b", base=base)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_exported_skills_follow_the_agent_skills_rules_and_round_trip(harness: Harness, tmp_path: Path):
    export_harness(harness, "skills", tmp_path / "skills")
    folders = sorted(p.name for p in (tmp_path / "skills").iterdir() if p.is_dir())
    assert folders == ["check-before-done", "python-instead-of-missing-tools", "terminal-agent-instructions", "view"]
    assert all(skill_problems(tmp_path / "skills" / name) == [] for name in folders)
    instructions = (tmp_path / "skills" / "terminal-agent-instructions" / "SKILL.md").read_text()
    assert (
        "completes tasks in a Linux terminal" in instructions
        and "check-before-done (../check-before-done/SKILL.md)" in instructions
    )
    assert (tmp_path / "skills" / "view" / "view.py").read_text() == harness.components["tools/view/view.py"]
    assert "python3 $TOOL_DIR/view.py ARGUMENTS" in (tmp_path / "skills" / "view" / "SKILL.md").read_text()

    prompts_only = Harness(
        {path: text for path, text in harness.components.items() if not path.startswith(("skills/", "tools/"))}
    )
    import_harness(
        "skills", tmp_path / "skills", tmp_path / "back", base=prompts_only
    )  # the format has no place for prompts
    assert Harness.load(tmp_path / "back").components == harness.components


def test_a_skills_import_takes_what_the_reference_validator_takes_and_refuses_one_bad_skill_alone(tmp_path: Path):
    skills = tmp_path / "skills"
    for folder, file, front in [
        ("pdf-tools", "SKILL.md", "name: pdf-tools\ndescription: Read PDFs.\nallowed-tools:\n  - Bash\n  - Read\n"),
        ("csv-tools", "skill.md", "name: csv-tools\ndescription: Read CSV files.\n"),
        ("Bad-Name", "SKILL.md", "name: Bad-Name\ndescription: Shouts.\n"),
    ]:
        (skills / folder).mkdir(parents=True)
        (skills / folder / file).write_text(f"---\n{front}---\nUse it well.\n")
    imported = import_harness("skills", skills, tmp_path / "out", base=Harness.load(BASH_AGENT))
    harness = Harness.load(tmp_path / "out")
    assert sorted(skill.name for skill in harness.skills) == [
        "csv-tools",
        "pdf-tools",
        "python-instead-of-missing-tools",
    ]
    assert "skills/csv-tools/SKILL.md" in harness.components
    refused = [note for note in imported.notes if note.startswith("refused")]
    assert len(refused) == 1 and "Bad-Name" in refused[0] and "lowercase" in refused[0]
    assert any("pdf-tools: frontmatter `allowed-tools`" in note for note in imported.notes)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine\n")
    with pytest.raises(UserError, match="busy is not empty"):
        import_harness("skills", skills, tmp_path / "busy", base=Harness.load(BASH_AGENT))
    assert sorted(p.name for p in (tmp_path / "busy").iterdir()) == ["notes.txt"]


def test_a_skill_whose_name_is_not_its_folder_is_refused_naming_both(tmp_path: Path):
    folder = shutil.copytree(BASH_AGENT, tmp_path / "harness")
    skill = folder / "skills" / "python-instead-of-missing-tools" / "SKILL.md"
    skill.write_text(skill.read_text().replace("name: python-instead-of-missing-tools", "name: use-python"))
    with pytest.raises(
        HarnessError, match=r"SKILL.md.*'use-python' must be its folder's name 'python-instead-of-missing-tools'"
    ):
        Harness.load(folder)


def test_claude_code_export_has_instructions_and_skills(harness: Harness, tmp_path: Path):
    export_harness(harness, "claude-code", tmp_path / "project")
    instructions = (tmp_path / "project" / "CLAUDE.md").read_text()
    assert (
        instructions == "# terminal-agent\n\nYou are an agent that completes tasks in a Linux terminal.\n"
    )  # Claude Code lists skills itself
    skills = tmp_path / "project" / ".claude" / "skills"
    assert sorted(folder.name for folder in skills.iterdir()) == [
        "check-before-done",
        "python-instead-of-missing-tools",
        "view",
    ]
    assert all(skill_problems(folder) == [] for folder in skills.iterdir())
    assert "python3 ${CLAUDE_SKILL_DIR}/view.py" in (skills / "view" / "SKILL.md").read_text()
    assert "«When the task is complete, run `echo TASK_DONE`.»" in (tmp_path / "project" / "EXPORT.md").read_text()


@pytest.mark.parametrize(
    ("front", "problem"),
    [
        ({"name": "Data-Tools", "description": "x"}, "lowercase"),
        ({"name": "-data", "description": "x"}, "lowercase"),
        ({"name": "data--tools", "description": "x"}, "single hyphens"),
        ({"name": "a" * 65, "description": "x"}, "at most 64"),
        ({"name": "other", "description": "x"}, "must match its folder"),
        ({"name": "data", "description": ""}, "`description` is missing"),
        ({"name": "data", "description": "d" * 1025}, "at most 1024"),
        ({"name": "data", "description": "x", "compatibility": "c" * 501}, "`compatibility`"),
        ({"name": "data", "description": "x", "metadata": {"n": 1}}, "map strings to strings"),
        ({"name": "data", "description": "x", "version": "1"}, "unknown frontmatter field `version`"),
    ],
)
def test_skill_validator_applies_the_agent_skills_rules(front: dict, problem: str):
    assert any(problem in found for found in frontmatter_problems(front, "data"))
    assert (
        frontmatter_problems({"name": "data", "description": "x", "license": "MIT", "metadata": {"a": "b"}}, "data")
        == []
    )


def test_export_makes_invalid_names_valid_and_says_so(tmp_path: Path):
    harness = Harness.load(BASH_AGENT).apply(
        Edit(
            ops=[
                Write(
                    path="skills/Read_Logs/SKILL.md",
                    text="---\nname: Read_Logs\ndescription: Reading logs.\n---\nUse tail.\n",
                )
            ]
        )
    )
    exported = export_harness(harness, "skills", tmp_path / "out")
    assert skill_problems(tmp_path / "out" / "read-logs") == []
    assert any("`Read_Logs` was rewritten" in sentence for sentence in exported.lost)


def test_paths_from_a_run_or_an_import_never_leave_the_chosen_folder(tmp_path: Path):
    harness = Harness.load(BASH_AGENT)
    with pytest.raises(UserError, match="unsafe path"):
        skill_name("../../etc")
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(outside, out / "skills")
    with pytest.raises(UserError, match="is a link"):
        export_harness(harness, "native", out)
    assert list(outside.iterdir()) == []

    (tmp_path / "existing").mkdir()
    (tmp_path / "existing" / "harness.toml").write_text("mine")
    with pytest.raises(UserError, match="already exists"):
        export_harness(harness, "native", tmp_path / "existing")
    assert (tmp_path / "existing" / "harness.toml").read_text() == "mine"

    linked = tmp_path / "linked-skills"
    (linked / "notes").mkdir(parents=True)
    (linked / "notes" / "SKILL.md").write_text("---\nname: notes\ndescription: Notes.\n---\nBody.\n")
    os.symlink("/etc/passwd", linked / "notes" / "passwd")
    with pytest.raises(UserError, match="links are refused"):
        import_harness("skills", linked, tmp_path / "imported", base=harness)

    escaping = tmp_path / "escaping-skills" / "notes"
    escaping.mkdir(parents=True)
    (escaping / "SKILL.md").write_text("---\nname: ../notes\ndescription: Notes.\n---\nBody.\n")
    with pytest.raises(UserError, match="not a valid Agent Skill"):
        import_harness("skills", escaping.parent, tmp_path / "imported", base=harness)
    assert not (tmp_path / "imported").exists()


def test_import_of_a_config_whose_setting_does_not_fit_names_it(tmp_path: Path):
    config = tmp_path / "bad.yaml"
    config.write_text(
        'agent:\n  system_template: "s"\n  instance_template: "x"\nmodel: {}\nenvironment: {timeout: "soon"}\n'
    )
    with pytest.raises(
        UserError,
        match="bad.yaml: a setting harness-evo cannot take: command_timeout_s: Input should be a valid number",
    ):
        import_harness(
            "mini-swe-agent",
            config,
            tmp_path / "out",
            base=Harness.load(Path(__file__).parents[1] / "harnesses" / "bash-agent"),
        )


def with_features() -> Harness:
    """The default harness with workspace discovery, the loop guard and the missing-program hint on."""
    default = Harness.load(BASH_AGENT)
    toml = default.components["harness.toml"]
    for key, value in [
        ("discovery", True),
        ("discovery_commands", ["pwd", "cat absent.cfg"]),
        ("loop_guard", True),
        ("loop_guard_repeats", 2),
        ("missing_hint", True),
    ]:
        toml = set_setting(toml, "agent", key, value)
    return Harness({**default.components, "harness.toml": toml})


@pytest.mark.parametrize("fmt", ["mini-swe-agent", "skills", "claude-code"])
def test_each_export_of_a_harness_with_the_features_on_names_what_its_format_cannot_carry(fmt: str, tmp_path: Path):
    harness = with_features()

    export_harness(harness, fmt, tmp_path / "out")

    notes = " ".join((tmp_path / "out" / "EXPORT.md").read_text().split())
    assert "the loop guard ([agent] loop_guard)" in notes and "after 2 such repeats" in notes
    assert "the missing-program hint ([agent] missing_hint)" in notes
    assert "the first 10 lines of the files the instruction names" in notes
    assert ("what pwd; cat absent.cfg print" in notes) == (fmt != "claude-code"), (
        "Claude Code runs them in a SessionStart hook"
    )
    back = import_harness(
        fmt,
        tmp_path / "out" / ("config.yaml" if fmt == "mini-swe-agent" else ""),
        tmp_path / "back",
        base=Harness.load(BASH_AGENT),
    ).harness
    assert back.hash == harness.hash and back.agent.loop_guard_repeats == 2


def test_mini_swe_agent_runs_the_default_harness_exported_with_the_features_on(tmp_path: Path):
    export_harness(with_features(), "mini-swe-agent", tmp_path / "mini")

    messages = run_mini(
        tmp_path / "mini" / "config.yaml", "```bash\nprintf 'hello\\n'\n```", "Say hello.", step_limit=2
    )

    instance, observation = messages[1]["content"], messages[3]["content"]
    assert instance == "Task:\nSay hello.\n\nYou have 2 replies. Start.", (
        "mini-swe-agent runs no discovery: none is shown"
    )
    assert observation == "Exit code: 0\nOutput:\nhello\n"


def test_the_claude_code_export_runs_the_discovery_commands_in_a_session_start_hook(tmp_path: Path):
    export_harness(with_features(), "claude-code", tmp_path / "project")
    settings = json.loads((tmp_path / "project" / ".claude" / "settings.json").read_text())
    [start] = settings["hooks"]["SessionStart"]
    [hook] = start["hooks"]
    workspace = tmp_path / "workspace"
    workspace.mkdir()

    ran = subprocess.run(["bash", "-c", hook["command"]], cwd=workspace, capture_output=True, text=True, timeout=30)

    assert start["matcher"] == "startup" and hook["type"] == "command" and hook["timeout"] == 30
    assert ran.returncode == 0, "a failing discovery command does not fail the hook"
    assert ran.stdout.startswith(
        f"$ pwd\n{workspace}\n$ cat absent.cfg\ncat: absent.cfg: No such file or directory\n(failed: exit code 1)"
    )


def test_export_takes_a_harness_folder_and_refuses_a_node_for_it_or_a_source_that_is_neither(cli, tmp_path: Path):
    result = cli("export", BASH_AGENT, "--format", "claude-code", "--out", tmp_path / "project")
    assert result.exit_code == 0, result.output
    assert f"exported harness {BASH_AGENT} as claude-code" in result.output
    assert f"From the harness folder `{BASH_AGENT}`" in (tmp_path / "project" / "EXPORT.md").read_text()
    import_harness("claude-code", tmp_path / "project", tmp_path / "back", base=None)
    assert Harness.load(tmp_path / "back").hash == Harness.load(BASH_AGENT).hash
    refused = cli("export", BASH_AGENT, "--node", "root", "--out", tmp_path / "other")
    assert isinstance(refused.exception, UserError) and "--node names a node of a run" in str(refused.exception)
    assert not (tmp_path / "other").exists()
    neither = cli("export", tmp_path, "--out", tmp_path / "other", "--runs", tmp_path)
    assert isinstance(
        neither.exception, UserError
    ) and "is neither a harness folder (with harness.toml) nor a run" in str(neither.exception)

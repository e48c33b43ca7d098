"""The static critic: every edit is judged before a rollout is paid for it, and every refusal says why."""

import json
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.config import ModelsConfig, RoleModel, RunConfig, SandboxConfig, SearchConfig
from harness_evo.evolve.critic import Critic
from harness_evo.evolve.leakage import LeakIndex
from harness_evo.evolve.target import Target
from harness_evo.harness import Delete, Edit, Harness, Replace, Write
from harness_evo.llm import LLM, scripted
from harness_evo.taskset import Task, load_suite

HARNESS = Harness.load(world.HARNESS)
TRAIN = load_suite(world.TASKS).split("train")
DEFECT = "Save every file you create under /tmp/work/ (the shared output folder)."
PATTERN = Target(id="P1", support=2, description="saves its output files in a folder other than the working directory")


pytestmark = pytest.mark.usefixtures("user_cache")


def prompt_edit(new: str) -> Edit:
    return Edit(
        ops=[Replace(path="prompts/system.md.j2", old=DEFECT, new=new)], rationale="put files where the task says"
    )


def judge(edit: Edit, config: SearchConfig | None = None, review: str | None = None, backend=None):
    config = config or SearchConfig()
    if review is None:
        return Critic(config, TRAIN, backend).judge(HARNESS, edit, PATTERN)
    name = f"critic-{id(edit)}"
    scripted.register(name, [review])
    with LLM(ModelsConfig(critic=RoleModel(model=f"scripted/{name}"))) as llm:
        return Critic(config, TRAIN, backend, llm).judge(HARNESS, edit, PATTERN)


def test_a_general_edit_passes_with_its_child_harness():
    judgement = judge(prompt_edit("Save each file exactly where the task says."))
    assert judgement.status == "passed" and judgement.reasons == []
    assert "exactly where the task says" in judgement.child.render("system.md.j2")


def test_an_edit_that_makes_a_harness_already_tried_is_invalid_without_asking_the_critic_model():
    edit = prompt_edit("Save each file exactly where the task says.")
    child = HARNESS.apply(edit)
    scripted.register("critic-never-asked", [])
    with LLM(ModelsConfig(critic=RoleModel(model="scripted/critic-never-asked"))) as llm:
        judgement = Critic(SearchConfig(), TRAIN, llm=llm).judge(
            HARNESS, edit, PATTERN, known={child.hash: "the same as edit i0-r1-0 (rejected empirical)"}
        )

    assert judgement.status == "invalid"
    assert judgement.reasons == [
        "the edited harness is the same as edit i0-r1-0 (rejected empirical): propose a different edit"
    ]


def test_an_edit_quoting_a_training_tasks_expected_output_is_rejected_with_that_reason():
    judgement = judge(prompt_edit(DEFECT + ' When a task asks for a fruit, the word is "crunchy-apple-42".'))
    assert judgement.status == "rejected_static"
    assert 'quotes the tests of training task fruit (its expected output): "crunchy-apple-42"' in judgement.reasons


def test_an_edit_naming_a_training_task_or_its_files_is_rejected():
    judgement = judge(prompt_edit("For the stone task, check /app/stone.txt twice."))
    assert judgement.status == "rejected_static"
    assert any("names the training task stone" in reason for reason in judgement.reasons)
    assert any("names the file stone.txt of training task stone" in reason for reason in judgement.reasons)


def test_a_task_file_is_a_leak_only_when_its_name_has_an_extension(tmp_path: Path):
    folder = tmp_path / "ledger"
    (folder / "environment").mkdir(parents=True)
    for name in ("env", "report", "sales.csv"):
        (folder / "environment" / name).write_text("x\n")
    index = LeakIndex([Task(id="ledger", folder=folder, instruction="Sum the column.")])

    assert index.leaks("#!/usr/bin/env python3\n# write a report, then sync") == [], (
        "a shebang and common words name no task file"
    )
    assert index.leaks("read sales.csv first") == [
        "names the file sales.csv of training task ledger; edits must not depend on one task's files"
    ]


def test_a_tool_script_sharing_boilerplate_with_a_training_task_s_test_code_is_no_leak(tmp_path: Path):
    folder = tmp_path / "paths"
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "test_paths.py").write_text(
        "import sys\nfrom pathlib import Path\n\ndef main():\n    assert Path('out.txt').exists()\n"
    )
    index = LeakIndex([Task(id="paths", folder=folder, instruction="Write out.txt.")])
    script = "import sys\nfrom pathlib import Path\n\ndef main(args):\n    print(Path(args[0]).read_text())\n"

    assert index.leaks(script, code=True) == []
    assert index.leaks(script)[0].startswith("quotes the tests of training task paths"), (
        "the same words in a prompt are a quote"
    )


def test_long_verbatim_text_from_a_training_instruction_is_rejected(tmp_path: Path):
    judgement = judge(prompt_edit("Remember: write the word crunchy apple 42 into fruit txt and stop."))
    assert judgement.status == "rejected_static"
    assert any(reason.startswith("quotes the instruction of training task fruit") for reason in judgement.reasons)


def test_text_the_parent_already_had_is_not_held_against_an_edit():
    edit = Edit(
        ops=[
            Write(
                path="skills/notes/SKILL.md",
                text="---\nname: notes\ndescription: where files go\n---\n" + DEFECT + "\n",
            )
        ]
    )
    assert judge(edit).status == "passed"


def test_an_edit_that_does_not_apply_is_invalid_and_one_that_breaks_the_harness_is_rejected():
    missing = judge(Edit(ops=[Replace(path="prompts/system.md.j2", old="no such text", new="x")]))
    assert missing.status == "invalid" and "occurs 0 times" in missing.reasons[0]
    broken = judge(Edit(ops=[Delete(path="prompts/instance.md.j2")]))
    assert broken.status == "rejected_static"
    assert broken.reasons == [
        "the edited harness does not load: prompts/instance.md.j2: missing, and every harness needs this template"
    ], "no folder the file is not in"
    undefined = judge(prompt_edit("Your budget is {{ budget }} steps."))
    assert undefined.status == "rejected_static" and undefined.reasons[0].endswith(
        "prompts/system.md.j2: does not render: 'budget' is undefined (it can use agent, tools, skills)"
    )


def test_an_edit_beyond_the_size_budget_is_rejected():
    judgement = judge(prompt_edit("Be careful. " * 300), SearchConfig(max_harness_chars=3000, review=False))
    assert judgement.status == "rejected_static" and "over the budget of 3000" in judgement.reasons[0]


def test_the_critic_model_may_send_an_edit_back_with_its_reasons():
    review = json.dumps(
        {"task_specific": False, "addresses_pattern": False, "reasons": ["it only restates the problem"]}
    )
    judgement = judge(prompt_edit("Save each file exactly where the task says."), review=review)
    assert judgement.status == "rejected_static" and judgement.reasons == ["critic: it only restates the problem"]
    accepted = judge(
        prompt_edit("Save files where the task says."),
        review=json.dumps({"task_specific": False, "addresses_pattern": True, "reasons": []}),
    )
    assert accepted.status == "passed"
    specific = judge(
        prompt_edit("Save every file next to the first script you see."),
        review=json.dumps({"task_specific": True, "addresses_pattern": True}),
    )
    assert specific.reasons == ["critic: the edit names details of particular tasks"]


def test_the_critic_model_sees_an_appended_line_as_such_not_the_whole_rewritten_prompt():
    advice = "Run the script you fixed once more and read its output before you finish."
    system = HARNESS.components["prompts/system.md.j2"]
    seen = []
    scripted.register(
        "critic-append",
        lambda messages: seen.append(messages[-1]["content"]) or '{"task_specific": false, "addresses_pattern": true}',
    )
    edit = Edit(
        ops=[Write(path="prompts/system.md.j2", text=f"{system.rstrip()}\n{advice}\n")], rationale="check the fix"
    )
    with LLM(ModelsConfig(critic=RoleModel(model="scripted/critic-append"))) as llm:
        Critic(SearchConfig(), TRAIN, None, llm).judge(HARNESS, edit, PATTERN)

    [prompt] = seen
    assert "append to `prompts/system.md.j2`" in prompt and advice in prompt and DEFECT not in prompt


@pytest.mark.docker
def test_a_changed_tool_that_crashes_in_the_sandbox_is_rejected():
    from harness_evo.sandbox import get_backend

    tool = {"tools/count/tool.toml": 'description = "count lines"\ncommand = "python3 $TOOL_DIR/count.py"\n'}
    broken = Edit(
        ops=[Write(path=path, text=text) for path, text in (tool | {"tools/count/count.py": "def main(:\n"}).items()]
    )
    working = Edit(
        ops=[
            Write(path=path, text=text)
            for path, text in (tool | {"tools/count/count.py": "print('usage: count FILE')\n"}).items()
        ]
    )
    backend = get_backend(SandboxConfig())
    crashed = judge(broken, backend=backend)
    assert crashed.status == "rejected_static"
    assert crashed.reasons[0].startswith("the tool count crashes (SyntaxError) when run as `count --help`")
    assert judge(working, backend=backend).status == "passed"


def test_an_edit_that_hides_the_task_from_the_agent_is_rejected():
    edit = Edit(
        ops=[Write(path="prompts/instance.md.j2", text="Solve the task. You have {{ agent.step_limit }} replies.\n")]
    )
    judgement = judge(edit)
    assert judgement.status == "rejected_static"
    assert judgement.reasons == [
        "prompts/instance.md.j2 no longer shows {{ instruction }} to the agent; keep it in the template"
    ]


def test_an_embedded_critic_model_reviews_no_edit_unless_the_config_asks_for_it():
    config = RunConfig()
    hosted = RunConfig(models=ModelsConfig(critic=RoleModel(model="openai/gpt-4o-mini")))
    asked = RunConfig(search=SearchConfig(review=True))

    assert not config.reviews_edits() and hosted.reviews_edits() and asked.reviews_edits()


@pytest.mark.parametrize(
    "old, new", [("{{ agent.step_limit }}", "12"), ("Start.", "Start.   \n\n"), ("Task:", "Task:{# the task #}")]
)
def test_an_edit_to_a_template_that_renders_as_before_is_invalid_before_any_rollout(old, new):
    harness = Harness.load(Path(__file__).parents[1] / "harnesses" / "bash-agent")
    assert harness.agent.step_limit == 12
    edit = Edit(ops=[Replace(path="prompts/instance.md.j2", old=old, new=new)], rationale="say how many replies")

    judgement = Critic(SearchConfig(), TRAIN).judge(harness, edit, PATTERN)

    assert judgement.status == "invalid"
    assert judgement.reasons == ["the edit changes nothing the agent sees: the changed templates render as before"]
    visible = Edit(
        ops=[Replace(path="prompts/instance.md.j2", old=old, new="twelve")], rationale="say how many replies"
    )
    assert Critic(SearchConfig(), TRAIN).judge(harness, visible, PATTERN).status == "passed"

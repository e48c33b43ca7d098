"""Worked examples, a harness component: parsed and rendered in the action format, retrieved per task,
checked at load."""

import shutil
import time
from pathlib import Path

import jinja2
import pytest
import yaml

from harness_evo.agent.episodes import as_example
from harness_evo.agent.evaluate import evaluate
from harness_evo.agent.session import session
from harness_evo.agent.trajectory import Step, Trajectory
from harness_evo.cli import main
from harness_evo.config import RunConfig, SearchConfig
from harness_evo.errors import HarnessError
from harness_evo.evolve.critic import Critic
from harness_evo.harness import Edit, Harness, Write
from harness_evo.harness.examples import Example, Turn, parse_example, render_example
from harness_evo.harness.formats import export_harness, import_harness, skill_problems
from harness_evo.llm import scripted
from harness_evo.store import RunStore
from harness_evo.taskset import Task, load_suite

DEFAULT = Path(__file__).parents[1] / "harnesses" / "bash-agent"
FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures" / "eval-tasks"


def episode(
    name: str, instruction: str, *commands: str, category: str = "files", tags: tuple[str, ...] = ()
) -> Example:
    """A solved episode: each command's output is `ok`, the finish last."""
    turns = [Turn(reply=f"```bash\n{command}\n```", observation="ok") for command in commands]
    turns.append(Turn(reply="```bash\necho TASK_DONE\n```", observation="TASK_DONE"))
    return Example(
        name=name, task=name, category=category, tags=list(tags), source="rollout", instruction=instruction, turns=turns
    )


LIBRARY = [
    episode(
        "csv-sum",
        "Sum the second column of /app/sales.csv and write the total to /app/total.txt.",
        "head -3 /app/sales.csv",
        "awk -F, 'NR>1 {s+=$2} END {print s}' /app/sales.csv > /app/total.txt",
        category="data",
        tags=("csv",),
    ),
    episode(
        "greeting",
        "Create the file /app/hello.txt containing exactly the line: hello there",
        "echo 'hello there' > /app/hello.txt",
    ),
    episode(
        "log-errors",
        "Count the lines with ERROR in /var/log/app.log and write the count to /app/errors.txt.",
        "grep -c ERROR /var/log/app.log > /app/errors.txt",
        category="logs",
        tags=("grep",),
    ),
    episode(
        "tarball",
        "Pack the folder /app/site into /app/site.tar.gz.",
        "tar czf /app/site.tar.gz -C /app site",
        category="archives",
    ),
]


def with_examples(k: int, examples: list[Example] = LIBRARY, base: Path = DEFAULT) -> Harness:
    harness = Harness.load(base)
    toml = harness.components["harness.toml"].replace("examples = 0", f"examples = {k}")
    return Harness(
        harness.components | {"harness.toml": toml} | {example.path: render_example(example) for example in examples}
    )


def test_the_k_most_similar_examples_are_rendered_for_a_task():
    harness = with_examples(2)
    instruction = "Sum the third column of /app/costs.csv and write the total to /app/sum.txt."
    assert [example.name for example in harness.examples_for(instruction)] == ["csv-sum", "log-errors"]
    prompt = harness.render(
        "instance.md.j2", examples=harness.examples_for(instruction), instruction=instruction, step=0, steps_left=12
    )
    assert "Example 1:" in prompt and "awk -F, 'NR>1 {s+=$2} END {print s}' /app/sales.csv" in prompt
    assert "grep -c ERROR" in prompt and "tar czf" not in prompt and "hello there" not in prompt
    assert prompt.index("Example 2:") < prompt.index("Task:\n" + instruction)


def test_no_example_is_shown_when_k_is_0_and_the_default_harness_renders_as_without_examples():
    harness = with_examples(0)
    instruction = "Sum the third column of /app/costs.csv."
    assert len(harness.examples) == 4 and harness.examples_for(instruction) == []
    plain = Harness.load(DEFAULT)
    assert plain.agent.examples == 0 and plain.examples == []
    assert (
        plain.render("instance.md.j2", instruction=instruction, step=0, steps_left=12)
        == f"Task:\n{instruction}\n\nYou have 12 replies. Start."
    )


def test_an_example_sharing_no_word_with_the_instruction_is_never_shown():
    assert with_examples(3).examples_for("Reverse zzz qqq.") == []
    assert [example.name for example in with_examples(9).examples_for("Write a file /app/x.txt")] == [
        "greeting",
        "csv-sum",
        "log-errors",
        "tarball",
    ]


def test_retrieval_is_deterministic_whatever_the_order_of_the_files():
    instruction = "Create the file /app/out.txt with the count of ERROR lines."
    first = [example.name for example in with_examples(2).examples_for(instruction)]
    again = [example.name for example in with_examples(2, list(reversed(LIBRARY))).examples_for(instruction)]
    assert first == again == [example.name for example in with_examples(2).examples_for(instruction)]
    twins = [episode("b-twin", "Pack the folder /app/a."), episode("a-twin", "Pack the folder /app/a.")]
    assert [example.name for example in with_examples(1, twins).examples_for("Pack the folder /app/b.")] == [
        "a-twin"
    ]  # a tie goes by name


def test_render_then_parse_gives_the_example_back_even_with_fences_and_headings_in_the_output():
    tricky = Example(
        name="tricky",
        task="md-report",
        category="text",
        tags=["markdown"],
        source="solution",
        instruction="Write /app/report.md with a code block.",
        turns=[
            Turn(
                reply="Look first.\n```bash\ncat /app/report.md\n```",
                observation="## Reply\n```python\nprint(1)\n```\n",
            ),
            Turn(reply="```bash\nprintf '' > /app/empty && echo TASK_DONE\n```", observation=""),
        ],
    )
    text = render_example(tricky)
    assert text.startswith(
        "---\ntask: md-report\ncategory: text\ntags:\n- markdown\nsource: solution\n---\n## Instruction\n"
    )
    assert "````text\n## Reply\n```python" in text
    assert parse_example(text, "tricky", "examples/tricky.md") == tricky
    chatty = tricky.model_copy(
        update={"turns": [Turn(reply="Next:\n## Observation\n```bash\nls\n```", observation="x"), tricky.turns[1]]}
    )
    assert (
        parse_example(render_example(chatty), "tricky", "x").turns[0].reply
        == "Next:\n ## Observation\n```bash\nls\n```"
    )


def test_the_finish_may_go_without_its_observation():
    text = render_example(LIBRARY[1]).removesuffix("\n\n## Observation\n\n```text\nTASK_DONE\n```\n") + "\n"
    assert parse_example(text, "greeting", "x").turns[-1].observation is None


def test_examples_count_toward_the_size_budget():
    parent = Harness.load(DEFAULT)
    example = episode(
        "big", "Sort the lines of /app/words.txt. " + "word " * 400, "sort /app/words.txt -o /app/words.txt"
    )
    edit = Edit(ops=[Write(path=example.path, text=render_example(example))])
    size = sum(len(text) for text in parent.components.values()) + len(parent.render("system.md.j2"))
    critic = Critic(SearchConfig(max_harness_chars=size + 1000), train_tasks=[])
    assert any("over the budget" in reason for reason in critic.rules(parent, parent.apply(edit)))
    assert not any(
        "over the budget" in reason
        for reason in Critic(SearchConfig(max_harness_chars=size + 5000), train_tasks=[]).rules(
            parent, parent.apply(edit)
        )
    )


def test_an_example_made_in_code_is_held_to_the_rules_of_a_file():
    with pytest.raises(ValueError, match="does not parse in the bash-block action format"):
        Turn(reply="I am done.")
    with pytest.raises(ValueError, match="every reply but the finish needs its observation"):
        Example(
            name="x",
            task="x",
            source="rollout",
            instruction="Do x.",
            turns=[Turn(reply="```bash\nls\n```"), LIBRARY[0].turns[-1]],
        )
    with pytest.raises(ValueError, match="the last reply is not the finish"):
        Example(
            name="x",
            task="x",
            source="rollout",
            instruction="Do x.",
            turns=[Turn(reply="```bash\nls\n```", observation="")],
        )


GOOD = render_example(LIBRARY[1])


@pytest.mark.parametrize(
    ("relative", "text", "problem"),
    [
        (
            "examples/greeting.md",
            GOOD.split("---\n", 2)[2],
            "examples/greeting.md: missing `---` frontmatter with task",
        ),
        (
            "examples/greeting.md",
            GOOD.replace("source: rollout", "source: memory"),
            "examples/greeting.md: frontmatter source: Input should be 'rollout' or 'solution'",
        ),
        (
            "examples/greeting.md",
            GOOD.replace("source: rollout", "source: rollout\nscore: 3"),
            "examples/greeting.md: frontmatter score: Extra inputs",
        ),
        (
            "examples/greeting.md",
            GOOD.replace("```bash\necho 'hello there'", "```python\necho 'hello there'"),
            "examples/greeting.md: reply 1 does not parse in the bash-block action format: no fenced bash block found.",
        ),
        (
            "examples/greeting.md",
            GOOD.replace("\n\n## Observation\n\n```text\nok\n```", ""),
            "examples/greeting.md: reply 1 has no `## Observation`",
        ),
        (
            "examples/greeting.md",
            GOOD.replace("echo TASK_DONE", "ls"),
            "examples/greeting.md: the last reply is not the finish",
        ),
        (
            "examples/greeting.md",
            GOOD.replace("```text\nok\n```", "ok"),
            "examples/greeting.md: the observation of reply 1 must be one fenced block",
        ),
        (
            "examples/greeting.md",
            GOOD.removesuffix("```\n"),
            "examples/greeting.md: a ``` fence under the `## Observation` of reply 2 is never closed",
        ),
        (
            "examples/greeting.md",
            GOOD.replace("## Instruction\n", "Hello.\n## Instruction\n"),
            "examples/greeting.md: text before `## Instruction`",
        ),
        (
            "examples/greeting.md",
            "---\ntask: greeting\nsource: rollout\n---\n## Instruction\n\nSay hi.\n",
            "examples/greeting.md: no `## Reply`",
        ),
        ("examples/notes.txt", "a note", "examples/notes.txt: examples/ holds only <name>.md files"),
        (
            "examples/my greeting.md",
            GOOD,
            "examples/my greeting.md: name: Value error, example name 'my greeting' must be letters",
        ),
        ("examples/more/greeting.md", GOOD, "examples/more/greeting.md: examples/ holds only <name>.md files"),
        (
            "harness.toml",
            (DEFAULT / "harness.toml").read_text().replace("examples = 0", "examples = -1"),
            "harness.toml: agent.examples: Input should be greater than or equal to 0",
        ),
    ],
)
def test_bad_examples_are_one_line_naming_the_file(tmp_path: Path, relative: str, text: str, problem: str):
    folder = Path(shutil.copytree(DEFAULT, tmp_path / "h"))
    (folder / relative).parent.mkdir(parents=True, exist_ok=True)
    (folder / relative).write_text(text)
    with pytest.raises(HarnessError) as error:
        Harness.load(folder)
    message = str(error.value)
    assert problem in message and "\n" not in message and str(folder) in message


def exported(harness: Harness, format_name: str, out: Path) -> Path:
    export_harness(harness, format_name, out)
    return out


def test_native_export_is_the_folder_with_its_examples(tmp_path: Path):
    harness = with_examples(2)
    out = exported(harness, "native", tmp_path / "native")
    (out / "EXPORT.md").unlink()
    back = Harness.load(out)
    assert back.components == harness.components and [example.name for example in back.examples] == [
        "csv-sum",
        "greeting",
        "log-errors",
        "tarball",
    ]


def test_mini_swe_agent_export_renders_examples_into_the_instance_template_and_round_trips(tmp_path: Path):
    harness = with_examples(2)
    out = exported(harness, "mini-swe-agent", tmp_path / "mini")
    config = yaml.safe_load((out / "config.yaml").read_text())
    instance = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(config["agent"]["instance_template"])
    prompt = instance.render(task="Sum a column of /app/x.csv.", step_limit=12, n_model_calls=0)
    assert (
        "Example 1:" in prompt and "awk -F, 'NR>1 {s+=$2} END {print s}' /app/sales.csv" in prompt
    )  # csv-sum, first by name
    assert (
        "Example 2:" in prompt and "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in prompt and "Example 3:" not in prompt
    )
    assert "shows the first 2 by name" in (out / "EXPORT.md").read_text()

    import_harness("mini-swe-agent", out / "config.yaml", tmp_path / "back", base=Harness.load(DEFAULT))
    back = Harness.load(tmp_path / "back")
    assert back.agent.examples == 2
    assert {path: text for path, text in back.components.items() if path.startswith("examples/")} == {
        example.path: harness.components[example.path] for example in LIBRARY
    }


def test_skills_export_carries_a_skill_of_worked_examples_and_round_trips(tmp_path: Path):
    harness = with_examples(2)
    out = exported(harness, "skills", tmp_path / "skills")
    assert skill_problems(out / "bash-agent-examples") == []
    listing = (out / "bash-agent-examples" / "SKILL.md").read_text()
    assert "- `examples/csv-sum.md` (data): Sum the second column of /app/sales.csv" in listing
    assert (out / "bash-agent-examples" / "examples" / "tarball.md").read_text() == harness.components[
        "examples/tarball.md"
    ]

    prompts_only = Harness(
        {
            path: text
            for path, text in harness.components.items()
            if not path.startswith(("skills/", "tools/", "examples/"))
        }
    )
    imported = import_harness("skills", out, tmp_path / "back", base=prompts_only)
    assert Harness.load(tmp_path / "back").components == harness.components
    assert any("worked examples are the harness's examples/" in note for note in imported.notes)


def test_claude_code_export_carries_the_skill_of_worked_examples(tmp_path: Path):
    out = exported(with_examples(2), "claude-code", tmp_path / "project")
    skill = out / ".claude" / "skills" / "bash-agent-examples"
    assert skill_problems(skill) == [] and (skill / "examples" / "greeting.md").is_file()
    assert "the skill `bash-agent-examples` holds all 4" in (out / "EXPORT.md").read_text()


@pytest.mark.parametrize(
    ("relative", "text", "problem"),
    [
        (
            "examples/greeting.md",
            GOOD.replace("```bash\necho 'hello there' > /app/hello.txt\n```", "I wrote it."),
            "examples/greeting.md: reply 1 does not parse",
        ),
        (
            "harness.toml",
            (DEFAULT / "harness.toml").read_text().replace("examples = 0", "examples = -1"),
            "harness.toml: agent.examples",
        ),
    ],
)
def test_eval_says_what_is_wrong_with_an_example_in_one_line(
    tmp_path: Path, monkeypatch, capsys, relative: str, text: str, problem: str
):
    folder = Path(shutil.copytree(DEFAULT, tmp_path / "h"))
    (folder / "examples").mkdir()
    (folder / "examples" / "greeting.md").write_text(GOOD)
    (folder / relative).write_text(text)
    monkeypatch.setattr(
        "sys.argv",
        ["harness-evo", "eval", "--harness", str(folder), "--tasks", str(FIXTURES), "--runs", str(tmp_path / "runs")],
    )
    with pytest.raises(SystemExit) as exit_:
        main()
    error = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and problem in error and "\n" not in error and "Traceback" not in error
    assert not (tmp_path / "runs").exists()


def test_examples_are_refused_in_a_harness_whose_replies_are_tool_calls():
    harness = with_examples(1, LIBRARY[:1])
    toml = harness.components["harness.toml"].replace('action_format = "bash-block"', 'action_format = "tool-calls"')
    with pytest.raises(
        HarnessError, match="examples/csv-sum.md: examples are episodes in the bash-block action format"
    ):
        Harness(harness.components | {"harness.toml": toml})


def test_a_passed_rollout_becomes_an_example_that_reads_back():
    harness = Harness.load(DEFAULT)
    task = Task(
        id="greeting",
        folder=Path("/nowhere"),
        instruction="Create the file /app/greeting.txt containing exactly the line: hello harness",
        category="files",
        tags=["fixture"],
    )
    steps = [
        Step(index=0, reply="Look first.\n```bash\nls /app", action="ls /app", output="notes.txt\n", exit_code=0),
        Step(index=1, reply="I am done.", format_error="no fenced bash block found."),
        Step(
            index=2,
            reply="```bash\necho 'hello harness' > /app/greeting.txt\n```",
            action="echo 'hello harness' > /app/greeting.txt",
            output="x" * 5000,
            exit_code=0,
        ),
        Step(
            index=3, reply="```bash\necho TASK_DONE\n```", action="echo TASK_DONE", output="TASK_DONE\n", exit_code=0
        ),  # asked to confirm
        Step(
            index=4,
            reply="```bash\ncat /app/greeting.txt && echo TASK_DONE\n```",
            action="cat /app/greeting.txt && echo TASK_DONE",
            output="hello harness\nTASK_DONE\n",
            exit_code=0,
            finished=True,
        ),
    ]
    trajectory = Trajectory(
        task_id="greeting",
        trial=0,
        harness_hash=harness.hash,
        model="scripted/x",
        steps=steps,
        reward=1.0,
        confirmations=1,
    )

    example = as_example(trajectory, task, harness)

    assert [turn.command for turn in example.turns] == [
        "ls /app",
        "echo 'hello harness' > /app/greeting.txt",
        "cat /app/greeting.txt && echo TASK_DONE",
    ]
    assert example.turns[0].reply == "Look first.\n```bash\nls /app\n```"  # closed as the model meant it
    assert example.turns[0].observation == "Exit code: 0\nOutput:\nnotes.txt"  # as the harness showed it
    assert "characters cut" in example.turns[1].observation and len(example.turns[1].observation) < 700
    assert (example.name, example.task, example.category, example.tags, example.source) == (
        "greeting",
        "greeting",
        "files",
        ["fixture"],
        "rollout",
    )
    assert parse_example(render_example(example), "greeting", "examples/greeting.md") == example
    with pytest.raises(ValueError, match="did not pass"):
        as_example(trajectory.model_copy(update={"reward": 0.0}), task, harness)


def bash(command: str) -> str:
    return f"```bash\n{command}\n```"


def imitator(messages: list[dict]) -> str:
    """A solver that solves the greeting task only when it is shown a solved task of writing a line to a file, as small
    models do better with a worked example; otherwise it says it is done at once."""
    replies = sum(message["role"] == "assistant" for message in messages)
    if "welcome home" not in messages[1]["content"]:
        return bash("echo TASK_DONE")
    steps = [
        bash("ls /app"),
        bash("echo 'hello harness' > /app/greeting.txt"),
        bash("cat /app/greeting.txt && echo TASK_DONE"),
    ]
    return steps[min(replies, len(steps) - 1)]


def greeting_eval(tmp_path: Path, harness: Harness, label: str) -> Trajectory:
    suite = tmp_path / "suite"
    if not suite.exists():
        shutil.copytree(FIXTURES / "greeting", suite / "greeting")
        (suite / "suite.toml").write_text('[splits]\ntrain = ["greeting"]\ndev = []\ntest = []\n')
    name = f"imitator-{label}-{time.monotonic_ns()}"
    scripted.register(name, imitator)
    config = RunConfig(harness=harness.save(tmp_path / label), tasks=suite, split="train")
    config.models.solver.model = f"scripted/{name}"
    store = RunStore.create(tmp_path / "runs", "eval")
    with session(store, config) as run:
        evaluate(run)
    [row] = store.rows("rollouts")
    return Trajectory.model_validate(store.read_json(row["trajectory"]))


@pytest.mark.docker
def test_a_solver_that_needs_a_similar_solved_example_passes_with_examples_and_fails_without(tmp_path: Path):
    library = [
        episode(
            "welcome",
            "Create the file /app/welcome.txt containing exactly the line: welcome home",
            "echo 'welcome home' > /app/welcome.txt",
            "cat /app/welcome.txt",
        ),
        LIBRARY[2],
        LIBRARY[3],
    ]

    shown = greeting_eval(tmp_path, with_examples(1, library), "k1")
    hidden = greeting_eval(tmp_path, with_examples(0, library), "k0")

    assert shown.passed and shown.examples == ["welcome"] and "Example 1:" in shown.messages[1]["content"]
    assert "grep -c ERROR" not in shown.messages[1]["content"]
    assert not hidden.passed and hidden.examples == [] and "Example 1:" not in hidden.messages[1]["content"]
    harvested = as_example(shown, load_suite(tmp_path / "suite").tasks["greeting"], with_examples(1, library))
    grown = with_examples(2, [*library, harvested])
    assert {
        example.name for example in grown.examples_for("Create the file /app/x.txt containing exactly the line: x")
    } == {"greeting", "welcome"}

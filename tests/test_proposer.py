"""The proposer: a promoted pattern, its evidence, the harness and the ledger in; candidate edits out, never a crash."""

import json
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.config import ModelsConfig, RoleModel, SearchConfig
from harness_evo.evolve.proposer import Proposer
from harness_evo.evolve.target import Target
from harness_evo.harness import Harness, Replace
from harness_evo.llm import LLM, scripted
from harness_evo.standins.missing import MissingProgram
from harness_evo.standins.toolsmith import piped_input, program_args, usage_line
from harness_evo.store import Edit as TriedEdit

HARNESS = Harness.load(world.HARNESS)
DEFECT = "Save every file you create under /tmp/work/ (the shared output folder)."
PATTERN = Target(
    id="P1",
    support=2,
    category="environment-assumption",
    description="saves its output files in a folder other than the working directory",
)
EVIDENCE = [
    {
        "task_id": "fruit",
        "instruction": "Write the word crunchy-apple-42 into fruit.txt.",
        "root_cause": "It wrote the file under /tmp/work/.",
        "critical_step": 0,
        "digest": "[step 0] $ echo crunchy-apple-42 > /tmp/work/fruit.txt",
    }
]


pytestmark = pytest.mark.usefixtures("user_cache")


def propose(replies, ledger=(), feedback=(), candidates: int = 2, pattern=PATTERN, harness=HARNESS, tryout=None):
    """The proposals of a proposer answering with `replies`, and the messages it was sent."""
    seen = []

    def answer(messages):
        seen.append(messages)
        return replies.pop(0)

    name = f"proposer-{id(replies)}"
    scripted.register(name, answer)
    with LLM(ModelsConfig(proposer=RoleModel(model=f"scripted/{name}"))) as llm:
        proposals = Proposer(llm, SearchConfig(candidates=candidates), tryout).propose(
            pattern, EVIDENCE, harness, list(ledger), list(feedback)
        )
    return proposals, seen


def edit_json(
    old: str = DEFECT, new: str = "Save files where the task says.", path: str = "prompts/system.md.j2"
) -> dict:
    return {
        "rationale": "files go where the task expects them",
        "prediction": "relative-file tasks pass",
        "ops": [{"op": "replace", "path": path, "old": old, "new": new}],
    }


def test_a_proposal_becomes_an_edit_that_applies_to_the_harness():
    [proposal], [messages] = propose([json.dumps({"edits": [edit_json()]})])

    assert proposal.problem is None
    assert proposal.edit.ops == [
        Replace(path="prompts/system.md.j2", old=DEFECT, new="Save files where the task says.")
    ]
    assert proposal.edit.prediction == "relative-file tasks pass"
    child = HARNESS.apply(proposal.edit)
    assert "Save files where the task says." in child.render("system.md.j2")
    prompt = messages[-1]["content"]
    assert PATTERN.description in prompt and "crunchy-apple-42 > /tmp/work/fruit.txt" in prompt
    assert DEFECT in prompt, "the proposer sees the harness's components"


def test_an_appended_line_of_advice_becomes_a_write_that_keeps_the_component():
    advice = "After a command fails, read its error and fix the command before you finish."
    reply = {
        "edits": [
            {"rationale": "fix failures", "ops": [{"op": "append", "path": "prompts/system.md.j2", "text": advice}]}
        ]
    }
    [proposal], _ = propose([json.dumps(reply)])

    assert proposal.problem is None and proposal.ops[0]["op"] == "write"
    system = HARNESS.apply(proposal.edit).render("system.md.j2")
    assert system.rstrip().endswith(advice) and DEFECT in system


def test_a_tool_the_proposer_describes_with_its_prompt_s_placeholder_says_what_it_stands_in_for():
    """A run's accepted sqlite3 tool was shown to the agent as `sqlite3 sys.argv[1:]: what it does.`, and the agent
    then ran it on text and log files."""
    tool = {
        "op": "tool",
        "name": "sqlite3",
        "description": "sqlite3 ARGS: what it does",
        "text": "import sys\nprint(sys.argv)\n",
    }
    pattern = PATTERN.model_copy(
        update={
            "missing_programs": {
                "sqlite3": MissingProgram(name="sqlite3", tasks=["a"], calls={"sqlite3 a.db .tables": "a"})
            }
        }
    )
    [proposal], _ = propose(
        [json.dumps({"edits": [{"rationale": "supply the program", "ops": [tool]}]})],
        pattern=pattern,
        ledger=[offered("sqlite3")],
    )

    [added] = [t for t in HARNESS.apply(proposal.edit).tools if t.name == "sqlite3"]
    assert added.description == "sqlite3: works like the sqlite3 program, which is not installed here"


def test_a_tool_of_no_program_the_agent_ran_that_says_nothing_of_what_it_does_is_a_problem():
    """Twice in a run the proposer added a tool named after the harness's skill `python-instead-of-missing-tools`,
    whose docstring copied the prompt's placeholder: the agent would have seen it described as a program that is not
    installed, and each cost a gate."""
    tool = {
        "op": "tool",
        "name": "python-instead-of-missing-tools",
        "description": "PROGRAM ARGS: what it does.",
        "text": "import sys\nprint(sys.argv)\n",
    }
    [proposal], _ = propose([json.dumps({"edits": [{"rationale": "use python", "ops": [tool]}]})])
    assert proposal.edit is None and proposal.problem.startswith(
        "`python-instead-of-missing-tools` is no program the agent ran"
    )

    described = {
        **tool,
        "description": "python-instead-of-missing-tools NAME: print how to do what the program NAME does with python3",
    }
    [proposal], _ = propose([json.dumps({"edits": [{"rationale": "use python", "ops": [described]}]})])
    assert proposal.problem is None, proposal.problem
    undocumented_script = '"""PROGRAM ARGS: what it does."""\nimport sys\nprint(sys.argv)\n'
    [proposal], _ = propose(
        [
            json.dumps(
                {"edits": [{"rationale": "use python", "ops": [{**described, "text": "python3 -c 'print(1)'"}]}]}
            ),
            f"```python\n{undocumented_script}```",
        ]
    )
    [added] = [t for t in HARNESS.apply(proposal.edit).tools if t.name == "python-instead-of-missing-tools"]
    assert added.description == described["description"], (
        "the edit's description stands where the toolsmith's docstring says nothing"
    )


def test_a_tool_becomes_its_tool_toml_and_script_whatever_the_description_holds():
    script = "import sys\nprint('rows of', sys.argv[1])\n"
    tool = {"op": "tool", "name": "sqlite3", "description": 'sqlite3 DB "SQL":\nrun SQL on a database', "text": script}
    [proposal], _ = propose([json.dumps({"edits": [{"rationale": "supply the program", "ops": [tool]}]})])

    assert proposal.problem is None
    child = HARNESS.apply(proposal.edit)
    [added] = [t for t in child.tools if t.name == "sqlite3"]
    assert added.description == 'sqlite3 DB "SQL": run SQL on a database'
    assert child.components["tools/sqlite3/tool.py"] == script
    default = Harness.load(Path(__file__).parents[1] / "harnesses" / "bash-agent").apply(proposal.edit)
    assert "`sqlite3`: sqlite3 DB" in default.render("system.md.j2"), "the agent is told about the new command"


def test_a_tool_script_that_is_not_python_is_written_by_the_toolsmith_from_the_calls_that_missed_the_program():
    shell_line = "python3 -c \"import sqlite3; print(sqlite3.connect('shop.db').execute('SELECT 1'))\""
    tool = {
        "op": "tool",
        "name": "sqlite3",
        "description": "sqlite3 shop.db 'SELECT count(*) FROM orders'",
        "text": shell_line,
    }
    script = (
        '"""sqlite3 DB SQL: run SQL on the database DB and print each row."""\nimport sqlite3, sys\n'
        'for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]):\n    print("|".join(map(str, row)))\n'
    )
    pattern = PATTERN.model_copy(
        update={
            "missing_programs": {
                "sqlite3": MissingProgram(name="sqlite3", tasks=["a"], calls={"sqlite3 a.db 'SELECT name FROM t'": "a"})
            }
        }
    )
    replies = [
        json.dumps({"edits": [{"rationale": "supply it", "ops": [tool]}]}),
        f"Here it is:\n```python\n{script}```\n",
    ]

    [proposal], seen = propose(replies, pattern=pattern, ledger=[offered("sqlite3")])

    assert proposal.problem is None, proposal.problem
    child = HARNESS.apply(proposal.edit)
    assert child.components["tools/sqlite3/tool.py"] == script
    [added] = [t for t in child.tools if t.name == "sqlite3"]
    assert added.description == "sqlite3 DB SQL: run SQL on the database DB and print each row."
    assert "sqlite3 a.db 'SELECT name FROM t'" in seen[1][-1]["content"], "the toolsmith sees how the agent called it"


def test_a_tool_whose_toolsmith_writes_no_python_is_a_problem():
    tool = {"op": "tool", "name": "sqlite3", "description": "sqlite3 DB SQL", "text": ""}
    [proposal], seen = propose(
        [
            json.dumps({"edits": [{"rationale": "supply it", "ops": [tool]}]}),
            *["I cannot write that."] * SearchConfig().tool_attempts,
        ]
    )
    assert proposal.edit is None and "has no script" in proposal.problem
    assert len(seen) == 1 + SearchConfig().tool_attempts


class CrashingCalls:
    """A tryout in which every script crashes on every call."""

    def run(self, program, script, calls):
        return {call: f"`{call}` exited with status 1: KeyError: 'x'" for call in calls}


def test_a_tool_whose_scripts_all_crash_on_the_agents_calls_is_a_problem_after_each_attempt_saw_the_failure():
    pattern = PATTERN.model_copy(
        update={
            "missing_programs": {
                "sqlite3": MissingProgram(name="sqlite3", tasks=["a"], calls={"sqlite3 a.db .tables": "a"})
            }
        }
    )
    script = '```python\n"""sqlite3 DB SQL: run SQL."""\nimport sys\n{}["x"]\n```'
    [proposal], seen = propose([script] * SearchConfig().tool_attempts, pattern=pattern, tryout=CrashingCalls())

    assert (
        proposal.edit is None
        and "each script the toolsmith wrote for sqlite3 failed the agent's calls" in proposal.problem
    )
    assert "KeyError: 'x'" in proposal.problem
    assert [("KeyError" in messages[-1]["content"]) for messages in seen] == [False] + [True] * (
        SearchConfig().tool_attempts - 1
    )


def test_a_script_that_names_a_file_from_the_agents_call_is_written_again():
    pattern = PATTERN.model_copy(
        update={
            "missing_programs": {
                "sqlite3": MissingProgram(name="sqlite3", tasks=["a"], calls={"sqlite3 /app/shop.db .tables": "a"})
            }
        }
    )
    hard_coded = (
        '```python\n"""sqlite3 /app/shop.db .tables: list the tables."""\nimport sqlite3\nsqlite3.connect("shop.db")\n'
        "```"
    )
    general = '```python\n"""sqlite3 DB SQL: run SQL."""\nimport sqlite3, sys\nsqlite3.connect(sys.argv[1])\n```'
    [proposal], seen = propose([hard_coded, general], pattern=pattern)

    assert "the script names `/app/shop.db` from `sqlite3 /app/shop.db .tables`" in seen[1][-1]["content"]
    assert len(seen) == 2 and proposal.problem is None
    assert HARNESS.apply(proposal.edit).components["tools/sqlite3/tool.py"] == general.split("\n", 1)[1].removesuffix(
        "```"
    )


def test_a_tool_standing_in_for_an_editor_is_a_problem_without_asking_the_toolsmith():
    tool = {"op": "tool", "name": "nano", "description": "edit a file", "text": ""}
    [proposal], seen = propose([json.dumps({"edits": [{"rationale": "supply it", "ops": [tool]}]})])
    assert proposal.edit is None and proposal.problem.startswith("no script can stand in for nano")
    assert len(seen) == 1


def test_a_tool_whose_name_is_no_command_is_a_problem():
    tool = {"op": "tool", "name": "sqlite3 shell", "description": "a shell", "text": "print(1)"}
    [proposal], _ = propose([json.dumps({"edits": [{"rationale": "supply it", "ops": [tool]}]})])
    assert proposal.edit is None and "command name" in proposal.problem


SQLITE_SCRIPT = '"""sqlite3 DB SQL: run SQL on DB."""\nimport sqlite3, sys\nprint(sqlite3.connect(sys.argv[1]))\n'


def offered(program: str, parent_id: str = HARNESS.hash, status: str = "rejected_empirical") -> TriedEdit:
    """A ledger edit of `parent_id` that supplied `program` as a tool, with its fate."""
    return TriedEdit(
        id=f"offer-{program}",
        iteration=0,
        parent_id=parent_id,
        status=status,
        rationale=f"supply {program}",
        ops=[
            {"op": "write", "path": f"tools/{program}/tool.toml", "text": ""},
            {"op": "write", "path": f"tools/{program}/tool.py", "text": ""},
        ],
    )


def test_a_program_several_failed_tasks_missed_is_supplied_as_a_tool_without_asking_the_proposer():
    pattern = PATTERN.model_copy(
        update={
            "missing_programs": {
                "nano": MissingProgram(name="nano", tasks=["a", "b", "c"], calls={"nano notes.txt": "a"}),
                "sqlite3": MissingProgram(name="sqlite3", tasks=["a", "d"], calls={"sqlite3 a.db .tables": "a"}),
                "jq": MissingProgram(name="jq", tasks=["e"], calls={"jq .a e.json": "e"}),
            }
        }
    )
    [proposal], [messages] = propose([f"```python\n{SQLITE_SCRIPT}```"], pattern=pattern)

    assert "Write the script for the program `sqlite3`" in messages[-1]["content"], "only the toolsmith was asked"
    assert HARNESS.apply(proposal.edit).components["tools/sqlite3/tool.py"] == SQLITE_SCRIPT
    assert proposal.rationale.startswith("2 failed tasks ran `sqlite3`")

    [proposal], [messages] = propose([f"```python\n{SQLITE_SCRIPT}```"], ledger=[offered("sqlite3")], pattern=pattern)
    assert "Write the script for the program `jq`" in messages[-1]["content"], (
        "then the next program a script can stand in for"
    )
    [proposal], [messages] = propose(
        [json.dumps({"edits": [edit_json()]})], ledger=[offered("sqlite3"), offered("jq")], pattern=pattern
    )
    assert "Propose up to 2 edits" in messages[-1]["content"], "the rest is left to the proposer"
    [proposal], [messages] = propose(
        [f"```python\n{SQLITE_SCRIPT}```"], ledger=[offered("sqlite3", parent_id="another-node")], pattern=pattern
    )
    assert "tools/sqlite3/tool.py" in HARNESS.apply(proposal.edit).components, (
        "a program is offered again on another node"
    )


def test_a_program_whose_scripts_all_failed_is_offered_again_with_new_scripts_a_bounded_number_of_times():
    pattern = PATTERN.model_copy(
        update={
            "missing_programs": {
                "sqlite3": MissingProgram(name="sqlite3", tasks=["a"], calls={"sqlite3 a.db .tables": "a"})
            }
        }
    )
    refused = [offered("sqlite3", status="invalid")] * 2
    _, [messages] = propose([f"```python\n{SQLITE_SCRIPT}```"], ledger=refused, pattern=pattern)
    assert "Write the script for the program `sqlite3`" in messages[-1]["content"]
    _, [messages] = propose(
        [json.dumps({"edits": [edit_json()]})], ledger=[*refused, offered("sqlite3", status="invalid")], pattern=pattern
    )
    assert "Propose up to 2 edits" in messages[-1]["content"]


def test_a_script_that_uses_a_standard_module_it_never_imports_gets_the_import():
    pattern = PATTERN.model_copy(
        update={
            "missing_programs": {
                "sqlite3": MissingProgram(name="sqlite3", tasks=["a"], calls={"sqlite3 a.db .tables": "a"})
            }
        }
    )
    script = (
        '"""sqlite3 DB SQL: run SQL."""\nimport sqlite3\n\ndef main(db):\n'
        "    print(sqlite3.connect(db), sys.argv, os.sep)\nmain(sys.argv[1])\n"
    )
    [proposal], _ = propose([f"```python\n{script}```"], pattern=pattern)
    written = HARNESS.apply(proposal.edit).components["tools/sqlite3/tool.py"]
    assert written == script.replace('run SQL."""\n', 'run SQL."""\nimport os\nimport sys\n')


def test_the_programs_the_agent_missed_reach_the_proposer_most_first():
    pattern = PATTERN.model_copy(
        update={
            "missing_programs": {
                "sqlite3": MissingProgram(name="sqlite3", tasks=["a", "b", "c"], calls={"sqlite3 a.db .tables": "a"}),
                "nano": MissingProgram(name="nano", tasks=["d"], calls={"nano notes.txt": "d"}),
            }
        }
    )
    _, [messages] = propose([json.dumps({"edits": [edit_json()]})], ledger=[offered("sqlite3")], pattern=pattern)
    assert "sqlite3 (3), nano (1)." in messages[-1]["content"]
    assert "script can stand in for sqlite3," in messages[-1]["content"]
    assert "No script can stand in for nano (interactive" in messages[-1]["content"]
    _, [messages] = propose([json.dumps({"edits": [edit_json()]})])
    assert "not installed here" not in messages[-1]["content"]


def test_a_missing_program_the_harness_already_supplies_is_not_offered_again():
    pattern = PATTERN.model_copy(
        update={
            "missing_programs": {
                "sqlite3": MissingProgram(name="sqlite3", tasks=["a", "b"], calls={"sqlite3 a.db .tables": "a"}),
                "jq": MissingProgram(name="jq", tasks=["c"], calls={"jq .a c.json": "c"}),
            }
        }
    )
    [proposal], _ = propose(
        [
            json.dumps(
                {
                    "edits": [
                        {
                            "rationale": "supply it",
                            "ops": [
                                {
                                    "op": "tool",
                                    "name": "sqlite3",
                                    "description": "sqlite3 DB SQL: run SQL on DB",
                                    "text": "print(1)",
                                }
                            ],
                        }
                    ]
                }
            )
        ]
    )
    child = HARNESS.apply(proposal.edit)
    _, [messages] = propose(
        [json.dumps({"edits": [edit_json()]})], ledger=[offered("jq", child.hash)], pattern=pattern, harness=child
    )
    assert "not installed here, with the number of failed tasks that ran each:\njq (1)." in messages[-1]["content"]


def test_a_tool_of_the_harness_that_crashed_on_the_agent_s_calls_is_rewritten_by_the_toolsmith():
    [proposal], _ = propose(
        [
            json.dumps(
                {
                    "edits": [
                        {
                            "rationale": "supply it",
                            "ops": [
                                {
                                    "op": "tool",
                                    "name": "sqlite3",
                                    "description": "sqlite3 DB SQL: run SQL on DB",
                                    "text": "print(1)",
                                }
                            ],
                        }
                    ]
                }
            )
        ]
    )
    child = HARNESS.apply(proposal.edit)
    broken = MissingProgram(name="sqlite3", tasks=["a", "b"], calls={"sqlite3 a.db 'SELECT 1'": "a"}, broken=True)

    [proposal], [messages] = propose(
        [f"```python\n{SQLITE_SCRIPT}```"],
        pattern=PATTERN.model_copy(update={"missing_programs": {"sqlite3": broken}}),
        harness=child,
    )

    assert "Write the script for the program `sqlite3`" in messages[-1]["content"]
    assert child.apply(proposal.edit).components["tools/sqlite3/tool.py"] == SQLITE_SCRIPT


TABLES_WHATEVER_THE_QUERY = (
    '"""sqlite3 DB SQL: list the tables."""\nimport sqlite3, sys\n'
    'for (name,) in sqlite3.connect(sys.argv[1]).execute("SELECT name FROM sqlite_master"):\n    print(name)\n'
)
CALLS = {"sqlite3 a.db 'SELECT 1'": "a", "sqlite3 b.db .tables": "b"}


class FailsScripts:
    """A tryout in which each script fails the calls it is given for, and runs the others."""

    def __init__(self, failing: dict[str, set[str]]):
        self.failing = failing

    def run(self, program, script, calls):
        failing = self.failing.get(script, set())
        return {call: f"`{call}` printed the same without `SELECT 1`" if call in failing else None for call in calls}


def supplying(script: str) -> Harness:
    """The test harness with a `sqlite3` stand-in tool that runs `script`."""
    reply = json.dumps(
        {
            "edits": [
                {
                    "rationale": "supply it",
                    "ops": [
                        {
                            "op": "tool",
                            "name": "sqlite3",
                            "description": "sqlite3 DB SQL: run SQL on DB",
                            "text": script,
                        }
                    ],
                }
            ]
        }
    )
    [proposal], _ = propose([reply])
    return HARNESS.apply(proposal.edit)


def test_a_tool_of_the_harness_that_fails_the_tryout_on_the_agent_s_calls_is_rewritten_by_the_toolsmith():
    harness = supplying(TABLES_WHATEVER_THE_QUERY)
    pattern = PATTERN.model_copy(
        update={"missing_programs": {"sqlite3": MissingProgram(name="sqlite3", tasks=["a", "b"], calls=CALLS)}}
    )
    tryout = FailsScripts({TABLES_WHATEVER_THE_QUERY: {"sqlite3 a.db 'SELECT 1'"}})

    [proposal], [messages] = propose(
        [f"```python\n{SQLITE_SCRIPT}```"], pattern=pattern, harness=harness, tryout=tryout
    )

    assert "Write the script for the program `sqlite3`" in messages[-1]["content"]
    assert (
        proposal.problem is None and harness.apply(proposal.edit).components["tools/sqlite3/tool.py"] == SQLITE_SCRIPT
    )
    assert "the harness's tool of that name fails their calls" in proposal.rationale


def test_a_tool_of_the_harness_that_runs_the_agent_s_calls_is_not_rewritten():
    harness = supplying(SQLITE_SCRIPT)
    pattern = PATTERN.model_copy(
        update={"missing_programs": {"sqlite3": MissingProgram(name="sqlite3", tasks=["a", "b"], calls=CALLS)}}
    )
    tryout = FailsScripts({TABLES_WHATEVER_THE_QUERY: set(CALLS)})

    [proposal], [messages] = propose(
        [json.dumps({"edits": [edit_json()]})], pattern=pattern, harness=harness, tryout=tryout
    )

    assert "Write the script" not in messages[-1]["content"] and proposal.edit.ops[0].op == "replace"


@pytest.mark.parametrize(
    ("new_fails", "problem"),
    [
        (
            {"sqlite3 b.db .tables"},
            "the toolsmith's script for sqlite3 fails a call the harness's tool runs: `sqlite3 b.db .tables`",
        ),
        (
            {"sqlite3 a.db 'SELECT 1'"},
            "the toolsmith's script for sqlite3 runs 1 of the agent's calls, no more than the harness's tool does",
        ),
    ],
)
def test_a_rewrite_that_loses_a_call_the_harness_s_tool_runs_or_gains_none_is_a_problem(new_fails, problem):
    harness = supplying(TABLES_WHATEVER_THE_QUERY)
    pattern = PATTERN.model_copy(
        update={"missing_programs": {"sqlite3": MissingProgram(name="sqlite3", tasks=["a", "b"], calls=CALLS)}}
    )
    tryout = FailsScripts({TABLES_WHATEVER_THE_QUERY: {"sqlite3 a.db 'SELECT 1'"}, SQLITE_SCRIPT: new_fails})

    [proposal], seen = propose(
        [f"```python\n{SQLITE_SCRIPT}```"] * SearchConfig().tool_attempts,
        pattern=pattern,
        harness=harness,
        tryout=tryout,
    )

    assert proposal.edit is None and proposal.problem.startswith(problem), proposal.problem
    assert len(seen) == SearchConfig().tool_attempts, "each attempt saw how the last one failed"


def test_the_toolsmith_script_that_keeps_the_calls_the_harness_s_tool_runs_is_chosen_over_one_that_runs_more():
    calls = {
        "sqlite3 a.db .tables": "a",
        "sqlite3 b.db 'SELECT 1'": "b",
        "sqlite3 c.db 'SELECT 2'": "c",
        "sqlite3 d.db 'SELECT 3'": "d",
    }
    keeps = SQLITE_SCRIPT.replace("run SQL on DB", "run SQL on DB, or list its tables")
    harness = supplying(TABLES_WHATEVER_THE_QUERY)
    pattern = PATTERN.model_copy(
        update={
            "missing_programs": {"sqlite3": MissingProgram(name="sqlite3", tasks=["a", "b", "c", "d"], calls=calls)}
        }
    )
    tryout = FailsScripts(
        {
            TABLES_WHATEVER_THE_QUERY: set(list(calls)[1:]),
            SQLITE_SCRIPT: {"sqlite3 a.db .tables"},
            keeps: set(list(calls)[2:]),
        }
    )

    [proposal], _ = propose(
        [f"```python\n{script}```" for script in (keeps, SQLITE_SCRIPT, SQLITE_SCRIPT, SQLITE_SCRIPT)],
        pattern=pattern,
        harness=harness,
        tryout=tryout,
    )

    assert proposal.problem is None and harness.apply(proposal.edit).components["tools/sqlite3/tool.py"] == keeps


def test_a_bare_edit_in_a_fenced_block_is_understood():
    reply = "Here is my fix:\n```json\n" + json.dumps(edit_json()) + "\n```"
    [proposal], _ = propose([reply])
    assert proposal.problem is None and proposal.edit is not None


def test_a_reply_that_is_no_edit_at_all_is_recorded_as_a_problem_not_raised():
    proposals, seen = propose(["I would change the prompt.", "Still prose, sorry."])
    assert len(seen) == 2, "one repair round"
    [proposal] = proposals
    assert proposal.edit is None and proposal.problem.startswith("the proposer's reply was not a valid list of edits")


def test_an_edit_escaping_the_harness_folder_is_a_problem():
    reply = {"edits": [edit_json(path="../../etc/passwd"), {"rationale": "empty", "ops": []}]}
    proposals, _ = propose([json.dumps(reply)])
    assert [proposal.edit for proposal in proposals] == [None, None]
    assert "unsafe path" in proposals[0].problem and proposals[1].problem == "the edit has no operations"


def test_no_more_candidates_than_configured_are_taken():
    reply = {"edits": [edit_json(new=f"variant {i}") for i in range(4)]}
    proposals, _ = propose([json.dumps(reply)], candidates=2)
    assert [proposal.edit.ops[0].new for proposal in proposals] == ["variant 0", "variant 1"]


def test_the_ledger_and_the_critics_reasons_reach_the_proposer():
    ledger = [
        TriedEdit(
            id="i0-r0-0",
            iteration=0,
            parent_id=HARNESS.hash,
            status="rejected_empirical",
            rationale="tell it to double-check",
            ops=[{"path": "prompts/system.md.j2"}],
            gate={"reason": "0 fixed vs 2 broken (4 ties)"},
        )
    ]
    feedback = [
        TriedEdit(
            id="i1-r0-0",
            iteration=1,
            parent_id=HARNESS.hash,
            status="rejected_static",
            rationale="hard-code the fruit",
            reasons=['quotes the tests of training task fruit: "crunchy-apple-42"'],
        )
    ]
    _, [messages] = propose([json.dumps({"edits": [edit_json()]})], ledger=ledger, feedback=feedback)
    prompt = messages[-1]["content"]
    assert "rejected_empirical: tell it to double-check" in prompt and "0 fixed vs 2 broken" in prompt
    assert "sent back" in prompt and 'quotes the tests of training task fruit: "crunchy-apple-42"' in prompt


def test_the_ledger_of_edits_never_gated_reaches_the_proposer_of_a_later_iteration(tmp_path):
    from harness_evo.evolve.ledger import Ledger
    from harness_evo.evolve.proposer import Proposal
    from harness_evo.store import RunStore

    ledger = Ledger(RunStore.create(tmp_path / "runs", "evolve"), lambda event: None)
    ledger.propose(
        0,
        0,
        0,
        "n0",
        "P1",
        Proposal(ops=[], rationale="move the files", problem="replace: the old text occurs 0 times"),
    )

    tried = ledger.tried("P1", before=1)
    [proposal], [messages] = propose([json.dumps({"edits": [edit_json()]})], ledger=tried)

    assert proposal.problem is None
    assert (
        "invalid: move the files" in messages[-1]["content"]
        and "the old text occurs 0 times" in messages[-1]["content"]
    )


@pytest.mark.parametrize(
    "call, args",
    [
        ("sqlite3 shop.db 'SELECT count(*) FROM t' > count.txt", ["shop.db", "SELECT count(*) FROM t"]),
        ("cd /app && sqlite3 a.db .tables | sort", ["a.db", ".tables"]),
        ("sqlite3 a.db 'unclosed", None),
        ("python3 x.py", None),
    ],
)
def test_the_toolsmith_sees_the_arguments_the_program_got_without_the_shell_around_them(call, args):
    assert program_args(call, "sqlite3") == args


@pytest.mark.parametrize(
    "call, piped",
    [
        ("cat a.json | jq .x", "cat a.json"),
        ("cd /app && cat a.json | jq .x > b", "cat a.json"),
        ("echo $line | jq .x", None),
        ("jq .x a.json", None),
        ("jq .x a.json | sort", None),
    ],
)
def test_the_tryout_feeds_a_call_the_output_of_the_command_piped_into_it_when_it_can_run_again(call, piped):
    assert piped_input(call, "jq") == piped


@pytest.mark.parametrize(
    "line, usage",
    [
        ("sqlite3 DB SQL: run SQL.", "sqlite3 DB SQL: run SQL."),
        ("PROGRAM ARGS: run SQL.", "sqlite3 ARGS: run SQL."),
        ("PROGRAM sqlite3 DB: run SQL.", "sqlite3 DB: run SQL."),
        ("Runs SQL on a database.", "sqlite3: Runs SQL on a database."),
        ("", "sqlite3: works like the sqlite3 program, which is not installed here"),
        ("PROGRAM sys.argv[1:]: what it does.", "sqlite3: works like the sqlite3 program, which is not installed here"),
    ],
)
def test_a_tool_s_description_starts_with_its_name(line, usage):
    assert usage_line(line, "sqlite3") == usage

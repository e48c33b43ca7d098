"""The static critic: checks an edited harness before any rollout is paid for it.

Rules first (the edit applies, the harness loads, renders and stays within its size budget, changed tool
scripts survive a smoke call in a sandbox, nothing is quoted from the training tasks), then the critic
model's review of generality and relevance. Every problem is one sentence the proposer sees on revision.
"""

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness_evo.agent.agents import TOOLS_BIN, install_harness
from harness_evo.config import SearchConfig
from harness_evo.errors import InfraError, UserError
from harness_evo.evolve import templates
from harness_evo.evolve.leakage import LeakIndex
from harness_evo.evolve.target import Target
from harness_evo.harness import Edit, EditError, Harness
from harness_evo.harness.folder import SAMPLE_CONTEXT
from harness_evo.sandbox import SandboxBackend
from harness_evo.store import EditStatus
from harness_evo.taskset import Task

CRASH = re.compile(
    r"SyntaxError|IndentationError|NameError|ImportError|ModuleNotFoundError"
    r"|syntax error|command not found|can't open file"
)
"""What a broken tool prints whatever its arguments;
any other error may come from `--help` being no argument it takes."""
SMOKE_TIMEOUT_S = 20.0


class Judgement(BaseModel):
    """The static verdict on one edit."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    status: Literal[EditStatus.INVALID, EditStatus.REJECTED_STATIC, "passed"]
    reasons: list[str] = Field(default_factory=list)
    child: Harness | None = None


class Review(BaseModel):
    """The critic model's answer: two narrow questions, which a small model answers far more reliably than one broad
    "accept?"."""

    task_specific: bool
    """True when the edit names a particular task's files, values, answers or commands."""
    addresses_pattern: bool
    """True when the agent, following the edit, would act differently in the pattern's situation."""
    reasons: list[str] = Field(default_factory=list)
    """One sentence per problem."""

    @property
    def accept(self) -> bool:
        return self.addresses_pattern and not self.task_specific


class Critic:
    """Rule checks and, when given an `llm`, its review;
    `backend` and `smoke_task` are where changed tools are smoke-tested."""

    def __init__(self, config: SearchConfig, train_tasks: list[Task], backend: SandboxBackend | None = None, llm=None):
        self.config = config
        self.leaks = LeakIndex(train_tasks, n=config.ngram_words)
        self.smoke_task = min(train_tasks, key=lambda task: task.id) if train_tasks else None
        self.backend = backend
        self.llm = llm

    def judge(
        self,
        parent: Harness,
        edit: Edit,
        pattern: Target,
        seed: int = 0,
        known: Mapping[str, str] = MappingProxyType({}),
    ) -> Judgement:
        """`known` maps harnesses already proposed or in the tree to what they are: proposing one again is invalid."""
        try:
            child = parent.apply(edit)
        except EditError as e:
            return Judgement(status=EditStatus.INVALID, reasons=[str(e)])
        except UserError as e:
            return Judgement(status=EditStatus.REJECTED_STATIC, reasons=[f"the edited harness does not load: {e}"])
        if child.hash == parent.hash:
            return Judgement(status=EditStatus.INVALID, reasons=["the edit changes nothing"])
        if child.hash in known:
            return Judgement(
                status=EditStatus.INVALID,
                reasons=[f"the edited harness is {known[child.hash]}: propose a different edit"],
            )
        if renders_as_before(parent, child):
            return Judgement(
                status=EditStatus.INVALID,
                reasons=["the edit changes nothing the agent sees: the changed templates render as before"],
            )
        reasons = self.rules(parent, child)
        if not reasons and self.llm is not None:
            reasons = self.review(parent, edit, pattern, seed)
        return Judgement(status=EditStatus.REJECTED_STATIC if reasons else "passed", reasons=reasons, child=child)

    def rules(self, parent: Harness, child: Harness) -> list[str]:
        reasons = []
        size = child.size
        if size > self.config.max_harness_chars:
            reasons.append(
                f"the harness grows to {size} characters, over the budget of {self.config.max_harness_chars}; make the "
                "edit shorter"
            )
        changed = [path for path in child.changed_paths(parent) if path in child.components]
        known = "\n".join(parent.components.values())
        quoting = [
            path for path in changed if not path.startswith("examples/")
        ]  # an example quotes its train task by design
        for code in (False, True):
            added = "\n".join(child.components[path] for path in quoting if is_script(path) == code)
            reasons += [reason for reason in self.leaks.leaks(added, known, code) if reason not in reasons]
        reasons += hidden_variables(child)
        reasons += emptied_templates(parent, child)
        reasons += self.smoke(child, changed)
        return reasons

    def smoke(self, child: Harness, changed: list[str]) -> list[str]:
        """Run each new or changed tool with `--help` in a sandbox;
        a crash (syntax error, missing file or module) is a reason."""
        tools = [tool for tool in child.tools if any(path.startswith(f"tools/{tool.name}/") for path in changed)]
        if not tools or self.backend is None or self.smoke_task is None:
            return []
        reasons = []
        try:
            self.backend.prepare(self.smoke_task)
            with self.backend.open(self.smoke_task) as sandbox:
                install_harness(child, sandbox)
                for tool in tools:
                    result = sandbox.run(f"{TOOLS_BIN}/{tool.name} --help", timeout_s=SMOKE_TIMEOUT_S)
                    crash = CRASH.search(result.output)
                    if result.timed_out or result.exit_code in (126, 127) or crash:
                        why = (
                            "hangs"
                            if result.timed_out
                            else f"crashes ({(crash.group(0) if crash else f'exit {result.exit_code}')})"
                        )
                        last = result.output.strip().splitlines()[-1:] or [""]
                        reasons.append(f"the tool {tool.name} {why} when run as `{tool.name} --help`: {last[0][:200]}")
        except InfraError as e:
            reasons.append(f"the changed tools could not be smoke-tested ({e}); try again or leave tools unchanged")
        return reasons

    def review(self, parent: Harness, edit: Edit, pattern: Target, seed: int) -> list[str]:
        reply = self.llm.complete(
            "critic", templates.messages("critic", pattern=pattern, edit=edit, parent=parent), output=Review, seed=seed
        )
        if reply.parsed is None:
            return []
        review = reply.parsed
        if review.accept:
            return []
        default = (
            "the edit names details of particular tasks"
            if review.task_specific
            else "the edit does not change what the agent does in the pattern's situation"
        )
        return [f"critic: {reason}" for reason in review.reasons if reason.strip()] or [f"critic: {default}"]


def is_script(path: str) -> bool:
    """A tool's code, as opposed to its tool.toml or any prompt or skill."""
    return path.startswith("tools/") and not path.endswith("/tool.toml")


CONTEXTS = (
    SAMPLE_CONTEXT,
    SAMPLE_CONTEXT | {"output": "", "exit_code": 1, "timed_out": True, "step": 11, "steps_left": 1},
)
"""What templates are rendered with to see whether an edit changed what the agent reads: after a command that
worked, and after one that failed at the end of the steps."""


def renders_as_before(parent: Harness, child: Harness) -> bool:
    """Every component the edit changed is a prompt template that renders as the parent's does: such an edit changes
    nothing, and the gate would pay for pairs of rollouts that all tie."""
    changed = child.changed_paths(parent)
    templates = [
        path.removeprefix("prompts/")
        for path in changed
        if path.startswith("prompts/")
        and path.endswith(".j2")
        and path in parent.components
        and path in child.components
    ]
    return len(templates) == len(changed) and all(
        parent.render(template, **context) == child.render(template, **context)
        for template in templates
        for context in CONTEXTS
    )


SHOWN = {"instance.md.j2": "instruction", "observation.md.j2": "output", "format_error.md.j2": "error"}
"""Templates and the variable each must show the agent: without it the agent never sees its task,
or what its command did."""


def emptied_templates(parent: Harness, child: Harness) -> list[str]:
    """A sentence for each template the edit left rendering nothing where the parent's said something: the agent would
    get an empty prompt (a prune of a template's last part)."""
    reasons = []
    for path in child.changed_paths(parent):
        template = path.removeprefix("prompts/")
        if path.startswith("prompts/") and path.endswith(".j2") and path in child.components:
            if (
                path in parent.components
                and parent.render(template, **SAMPLE_CONTEXT)
                and not child.render(template, **SAMPLE_CONTEXT)
            ):
                reasons.append(f"{path} renders nothing after the edit; the agent needs what it says")
    return reasons


def hidden_variables(harness: Harness) -> list[str]:
    """A sentence for each template that no longer shows its essential variable."""
    reasons = []
    for template, variable in SHOWN.items():
        probe = f"<{variable} probe 7731>"
        if probe not in harness.render(template, **SAMPLE_CONTEXT | {variable: probe}):
            reasons.append(
                f"prompts/{template} no longer shows {{{{ {variable} }}}} to the agent; keep it in the template"
            )
    return reasons

"""The harness features the agent loop enforces in code (workspace discovery, the loop guard, the missing-program hint):
what their settings turn on, the template variables that show their results, and the check that a harness which turns
one on has a template that shows it."""

from typing import Any, Protocol

from pydantic import BaseModel


class Harness(Protocol):
    """What these checks read of a harness (`harness/folder.Harness`, which imports this module)."""

    @property
    def agent(self) -> Any: ...

    def render(self, template: str, **context: Any) -> str: ...


class Finding(BaseModel):
    """What one workspace-discovery command printed, as the instance template's `discovery` shows it."""

    command: str
    output: str
    """Its output, cut to `max_observation_chars`."""
    exit_code: int | None
    """None when it could not run at all."""
    timed_out: bool = False

    @property
    def failed(self) -> bool:
        return self.timed_out or self.exit_code != 0


SAMPLE_FINDINGS = [
    Finding(command="ls -la", output="total 8\n-rw-r--r-- 1 root root 6 notes.txt", exit_code=0),
    Finding(command="head -n 10 data.csv", output="", exit_code=None, timed_out=True),
]
"""A discovery that found something and one that timed out: what harness templates are checked against."""

SHOWN_BY = {
    "discovery": ("instance.md.j2", "discovery", {"discovery": SAMPLE_FINDINGS}),
    "loop_guard": ("observation.md.j2", "repeated", {"repeated": 2}),
    "missing_hint": (
        "observation.md.j2",
        "missing",
        {"missing": "sqlite3", "available": ["python3 (its sqlite3 module)"]},
    ),
}
"""Setting of `[agent]` -> (the template that shows its result, the variable it shows, sample values): a harness that
turns the setting on must render these values differently from none, or the setting would change nothing."""


def unshown(harness: Harness, context: dict[str, Any]) -> list[str]:
    """A sentence for each feature the harness turns on whose template renders the same with and without its result
    (`context` holds the other variables, the feature's own at their empty values)."""
    problems = []
    for setting, (template, variable, sample) in SHOWN_BY.items():
        if getattr(harness.agent, setting) and harness.render(template, **context | sample) == harness.render(
            template, **context
        ):
            problems.append(
                f"[agent] {setting} is on, but prompts/{template} does not show `{variable}`; show it there "
                f"(as harnesses/bash-agent does) or turn {setting} off"
            )
    return problems


SETTINGS = (
    "discovery",
    "discovery_commands",
    "discovery_head_lines",
    "loop_guard",
    "loop_guard_repeats",
    "missing_hint",
)
"""The `[agent]` settings of these features."""


def not_carried(harness: Harness, where: str, commands_carried: bool = False) -> list[str]:
    """A sentence for each feature the harness turns on that `where` (an agent of another format) does without, since it
    is code of harness-evo's agent loop; `commands_carried`: the export runs the discovery commands itself."""
    agent, lost = harness.agent, []
    if agent.discovery:
        heads = (
            f"the first {agent.discovery_head_lines} lines of the files the instruction names"
            if agent.discovery_head_lines
            else ""
        )
        commands = (
            f"what {'; '.join(agent.discovery_commands)} print"
            if agent.discovery_commands and not commands_carried
            else ""
        )
        if shown := " and ".join(part for part in (commands, heads) if part):
            lost.append(f"workspace discovery ([agent] discovery): {where} does not show {shown} before the first turn")
    if agent.loop_guard:
        lost.append(
            f"the loop guard ([agent] loop_guard): {where} does not tell the agent that a command repeats an earlier "
            f"one with the same output, nor end the episode after {agent.loop_guard_repeats} such repeats"
        )
    if agent.missing_hint:
        lost.append(
            f"the missing-program hint ([agent] missing_hint): {where} does not name what is installed in place of a "
            "program that is not"
        )
    return lost

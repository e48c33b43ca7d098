"""A worked example: one solved episode, `examples/<name>.md`, in the harness's `bash-block` action format.

    ---
    task: csv-sum-column         the task it came from
    category: data               that task's category and tags
    tags: [csv]
    source: rollout              `rollout` (a passed run of the agent) or `solution` (the task's reference solution)
    ---
    ## Instruction
    (the task's instruction)
    ## Reply
    (a reply with one fenced bash block)
    ## Observation
    (one fenced block: what the agent was shown of the command's result, long outputs cut)
    ## Reply
    ...
    ## Reply
    (the finish: its command prints TASK_DONE; an observation after it is optional)

A heading is one of the three lines above, outside any fenced block. Every reply but the last has an observation.
"""

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from harness_evo.config import one_line
from harness_evo.errors import HarnessError
from harness_evo.harness.actions import DONE_MARKER, FormatError, parse_bash_block
from harness_evo.harness.frontmatter import frontmatter, split_frontmatter

INSTRUCTION, REPLY, OBSERVATION = "## Instruction", "## Reply", "## Observation"
HEADINGS = (INSTRUCTION, REPLY, OBSERVATION)
_FENCE = re.compile(r"^(`{3,})(.*)$")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class Frontmatter(BaseModel):
    """Where an example came from."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    task: str = Field(min_length=1)
    """Id of the task the episode solved."""
    category: str = ""
    """That task's category."""
    tags: list[str] = Field(default_factory=list)
    """That task's tags."""
    source: Literal["rollout", "solution"]
    """`rollout`: a passed run of the agent; `solution`: the task's reference solution, run step by step."""


class Turn(BaseModel):
    """One reply of the agent and what its command printed."""

    reply: str
    """The reply, with one fenced bash block."""
    observation: str | None = None
    """What the agent was shown of the command's result (for a rollout, its observation message), output cut; None only
    after the finish."""

    @field_validator("reply")
    @classmethod
    def _runs(cls, reply: str) -> str:
        try:
            parse_bash_block(reply.strip())
        except FormatError as e:
            raise ValueError(f"does not parse in the bash-block action format: {e}") from None
        return reply.strip()

    @field_validator("observation")
    @classmethod
    def _trimmed(cls, observation: str | None) -> str | None:
        return None if observation is None else observation.rstrip("\n")

    @property
    def command(self) -> str:
        return parse_bash_block(self.reply)


class Example(Frontmatter):
    """A solved episode: the instruction and the turns up to the finish."""

    name: str
    """The file's name without `.md`."""
    instruction: str
    """What the agent was told."""
    turns: list[Turn] = Field(min_length=1)
    """The replies and observations, the finish last."""

    @field_validator("name")
    @classmethod
    def _one_file(cls, name: str) -> str:
        if not NAME.fullmatch(name):
            raise ValueError(
                f"example name {name!r} must be letters, digits, '.', '_' and '-' (it names examples/<name>.md)"
            )
        return name

    @field_validator("instruction")
    @classmethod
    def _stripped(cls, instruction: str) -> str:
        if not instruction.strip():
            raise ValueError("an example needs the task's instruction")
        return instruction.strip()

    @model_validator(mode="after")
    def _finishes(self) -> "Example":
        if DONE_MARKER not in self.turns[-1].command:
            raise ValueError(f"the last reply is not the finish; its command must print {DONE_MARKER}")
        if any(turn.observation is None for turn in self.turns[:-1]):
            raise ValueError("every reply but the finish needs its observation")
        return self

    @property
    def path(self) -> str:
        return f"examples/{self.name}.md"

    @property
    def text(self) -> str:
        """The episode as the file holds it below the frontmatter: what a template shows of it."""
        sections = [(INSTRUCTION, unheaded(self.instruction))]
        for turn in self.turns:
            sections.append((REPLY, unheaded(turn.reply)))
            if turn.observation is not None:
                sections.append((OBSERVATION, fenced(turn.observation)))
        return "\n\n".join(f"{heading}\n\n{text}" for heading, text in sections) + "\n"


def render_example(example: Example) -> str:
    """The text of `examples/<name>.md`."""
    return frontmatter(example.model_dump(include=set(Frontmatter.model_fields)), example.text)


def parse_example(text: str, name: str, where: str) -> Example:
    """The example in `text`, the file `examples/<name>.md` (`where` names it in errors);
    a HarnessError says what is wrong."""
    front, body = split_frontmatter(text, where, needs="task, category, tags and source")
    try:
        info = Frontmatter.model_validate(front)
    except ValidationError as e:
        raise HarnessError(f"{where}: frontmatter {one_line(e)}") from None
    sections = split_sections(body, where)
    if not sections or sections[0][0] != INSTRUCTION or not sections[0][1].strip():
        raise HarnessError(f"{where}: the episode starts with `{INSTRUCTION}` and the task's instruction")
    turns: list[dict[str, str]] = []
    for heading, content in sections[1:]:
        if heading == INSTRUCTION:
            raise HarnessError(f"{where}: a second `{INSTRUCTION}`; an example is one episode")
        if heading == REPLY:
            if turns and "observation" not in turns[-1]:
                raise HarnessError(
                    f"{where}: reply {len(turns)} has no `{OBSERVATION}`; only the finish may go without"
                )
            try:
                parse_bash_block(content)
            except FormatError as e:
                raise HarnessError(
                    f"{where}: reply {len(turns) + 1} does not parse in the bash-block action format: {e}"
                ) from None
            turns.append({"reply": content})
        else:
            if not turns or "observation" in turns[-1]:
                raise HarnessError(f"{where}: an `{OBSERVATION}` must follow a `{REPLY}`")
            turns[-1]["observation"] = unfenced(content, where, len(turns))
    if not turns:
        raise HarnessError(f"{where}: no `{REPLY}`; an example shows the turns that solved the task")
    if DONE_MARKER not in parse_bash_block(turns[-1]["reply"]):
        raise HarnessError(f"{where}: the last reply is not the finish; its command must print {DONE_MARKER}")
    try:
        return Example(
            name=name, instruction=sections[0][1], turns=[Turn(**turn) for turn in turns], **info.model_dump()
        )
    except ValidationError as e:
        raise HarnessError(f"{where}: {one_line(e)}") from None


def split_sections(body: str, where: str) -> list[tuple[str, str]]:
    """(heading, text below it) of each heading line outside fenced blocks."""
    sections: list[tuple[str, list[str]]] = []
    marked, unclosed = headings(body)
    if unclosed:
        above = [line.rstrip() for line, heading in marked[:unclosed] if heading]
        place = f"`{above[-1]}` of reply {above.count(REPLY)}" if above and above.count(REPLY) else f"`{INSTRUCTION}`"
        raise HarnessError(f"{where}: a ``` fence under the {place} is never closed")
    for line, heading in marked:
        if heading:
            sections.append((line.rstrip(), []))
        elif sections:
            sections[-1][1].append(line)
        elif line.strip():
            raise HarnessError(f"{where}: text before `{INSTRUCTION}`; the episode starts with it")
    return [(heading, "\n".join(lines)) for heading, lines in sections]


def headings(text: str) -> tuple[list[tuple[str, bool]], int]:
    """Each line of `text` and whether it is a heading of the episode (one of HEADINGS, outside any fenced block); and
    the number of the line that opens a fence left unclosed at the end, or 0."""
    lines, fence, opened = [], 0, 0
    for number, line in enumerate(text.splitlines(), 1):
        lines.append((line, not fence and line.rstrip() in HEADINGS))
        if match := _FENCE.match(line.strip()):
            ticks, info = match.groups()
            if not fence:
                fence, opened = len(ticks), number
            elif len(ticks) >= fence and not info.strip():
                fence = 0
    return lines, opened if fence else 0


def fenced(output: str) -> str:
    """`output` in a fenced block whose fence is longer than any run of backticks inside."""
    ticks = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", output)), default=0))
    inside = output.rstrip("\n")
    return f"{ticks}text\n{inside}\n{ticks}" if inside.strip("\n") else f"{ticks}text\n{ticks}"


def unfenced(content: str, where: str, turn: int) -> str:
    """The text of the one fenced block an observation is."""
    lines = content.strip("\n").splitlines()
    opening = _FENCE.match(lines[0].strip()) if lines else None
    if not opening or len(lines) < 2 or lines[-1].strip() != opening.group(1):
        raise HarnessError(f"{where}: the observation of reply {turn} must be one fenced block (``` ... ```)")
    return "\n".join(lines[1:-1])


def unheaded(text: str) -> str:
    """`text` with any line that would read as a heading of the episode indented by a space."""
    return "\n".join(f" {line}" if heading else line for line, heading in headings(text)[0])


SAMPLE_EXAMPLE = Example(
    name="sample",
    task="sample",
    category="files",
    tags=["one-step"],
    source="solution",
    instruction="Create hello.txt containing 'hi'.",
    turns=[
        Turn(reply="```bash\necho hi > hello.txt && cat hello.txt && echo TASK_DONE\n```", observation="hi\nTASK_DONE")
    ],
)
"""What templates are checked with at load time."""

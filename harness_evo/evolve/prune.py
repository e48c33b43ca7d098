"""Prune parts, a move without a model: a candidate is the parent harness without one of its parts (a paragraph or a
sentence of a prompt template, a tool or a skill of its listing, its worked examples), gated like any edit.

A part's *group* is where it sits: the template it is cut from (`prompts/system.md.j2`), or `tool`, `skill`,
`examples`. The run learns which groups pay: `order` puts first the parts of groups whose removals the gate accepted
most often per removal gated, so a group whose removals never helped is tried less; among parts of equal value, the
one that leaves the shorter harness comes first (the sign test accepts no tie, so "ties go to the shorter harness"
holds where it can: when two candidates of a turn would both pass, the gate sees the shorter one first).
"""

import re
from dataclasses import dataclass

from harness_evo.evolve.ledger import paid
from harness_evo.harness import Delete, Edit, Harness, Write
from harness_evo.store import Edit as LedgerEdit

PARAGRAPH = re.compile(r"\n[ \t]*\n")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(])|(?<=:)\n(?=[A-Z])")
"""A sentence ends at `.`, `!` or `?` followed by space and a capital, a backtick or a parenthesis, or at a `:` that
ends a line."""
SHORTEST = 12
"""Sentences shorter than this many characters are not parts (a list marker, a lone word)."""


@dataclass
class Part:
    """One removable part of a harness, and the edit that removes it."""

    group: str
    description: str
    edit: Edit


def text_parts(path: str, text: str) -> list[Part]:
    """The paragraphs of a template and the sentences of each, without Jinja tags or fenced code in them (removing
    half of a `{% if %}` block or of a code fence leaves a broken template); one removal a part, the same text once."""
    parts, seen = [], set()
    for paragraph in PARAGRAPH.split(text):
        if "{%" in paragraph or "```" in paragraph or not paragraph.strip():
            continue
        sentences = [s for s in SENTENCE.split(paragraph.strip()) if len(s) >= SHORTEST]
        for piece, what in [(paragraph, "paragraph"), *((s, "sentence") for s in sentences)]:
            piece = piece.strip()
            if piece in seen or text.count(piece) != 1:
                continue
            seen.add(piece)
            start = text.index(piece)
            rest = (text[:start].rstrip(" \t") + text[start + len(piece) :].lstrip(" \t\n")).replace("\n\n\n", "\n\n")
            quote = piece if len(piece) <= 80 else piece[:77] + "..."
            parts.append(
                Part(path, f"the {what} '{quote}' of {path}", Edit(ops=[Write(path=path, text=rest)], rationale=""))
            )
    return parts


def parts(harness: Harness) -> list[Part]:
    """Every part of `harness` a prune may remove, template by template, then its tools, skills and examples."""
    found = [
        part
        for path, text in harness.components.items()
        if path.startswith("prompts/") and path.endswith(".j2")
        for part in text_parts(path, text)
    ]
    for group, names in (("tool", [tool.name for tool in harness.tools]), ("skill", [s.name for s in harness.skills])):
        for name in names:
            folder = f"{group}s/{name}/"
            ops = [Delete(path=path) for path in harness.components if path.startswith(folder)]
            found.append(Part(group, f"the {group} {name}", Edit(ops=ops)))
    examples = [Delete(path=path) for path in harness.components if path.startswith("examples/")]
    if examples:
        found.append(Part("examples", f"the {len(examples)} worked examples", Edit(ops=examples)))
    for part in found:
        part.edit.rationale = f"prune {part.group}: the harness without {part.description}"
    return found


def group_of(edit: LedgerEdit) -> str:
    """The group of the part a prune edit of the ledger removed (see `parts`)."""
    path = edit.ops[0]["path"] if edit.ops else ""
    for prefix, group in (("tools/", "tool"), ("skills/", "skill"), ("examples/", "examples")):
        if path.startswith(prefix):
            return group
    return path


def removed(parent: Harness, part: Part) -> int:
    """Characters of `parent` the part's removal takes away."""
    return sum(
        len(parent.components.get(op.path, "")) - (len(op.text) if isinstance(op, Write) else 0) for op in part.edit.ops
    )


def order(parent: Harness, found: list[Part], history: list[LedgerEdit]) -> list[Part]:
    """`found` in the order to try them: groups that paid more first, then the part whose removal leaves the shorter
    harness."""
    value = paid(history, "prune", group_of)
    return sorted(found, key=lambda part: (-value.get(part.group, 1.0), -removed(parent, part)))

"""Failure patterns: each explained failure joins a pattern or opens one; patterns merge, split, get promoted, resolve.

Everything lives in the store (`failures`, `patterns`, `pattern_members`, written as events). `settle` brings
the patterns up to date with whatever failures are there, and every decision is written before it is carried
out, so a crash at any point is repaired by calling `settle` again.
"""

from collections import defaultdict
from typing import Any

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from harness_evo.config import FailuresConfig
from harness_evo.failures.ask import ask
from harness_evo.llm import LLM
from harness_evo.store import Failure, Pattern, PatternMember, PatternStatus, Rollout, RunStore

EXAMPLES = 3
"""Root causes shown per group when the model adjudicates or scores."""
CLOSE_CALLS = 3
"""The most similar patterns a new pattern is adjudicated against; the rest are kept apart unasked."""


class MergeVerdict(BaseModel):
    same: bool
    """True when one change to the harness would fix both groups."""
    reason: str = ""


class SplitVerdict(BaseModel):
    keep: list[int]
    """Numbers of the groups that show the pattern's defect."""
    reason: str = ""


class PatternScore(BaseModel):
    severity: float = Field(ge=0.0, le=1.0)
    fixability: float = Field(ge=0.0, le=1.0)
    side_effect_risk: float = Field(ge=0.0, le=1.0)
    reason: str = ""


class Aggregator:
    """Assigns failures to patterns and keeps the patterns' support, blame and status true to their members."""

    def __init__(self, store: RunStore, llm: LLM, config: FailuresConfig):
        self.store = store
        self.llm = llm
        self.config = config

    def settle(self) -> set[str]:
        """Bring every pattern up to date with the stored failures; the ids of the patterns that changed."""
        changed: set[str] = set()
        while step := self._finish_moves() | self._assign_pending() | self._compare_new() | self._refresh():
            changed |= step
        return changed

    def resolve(self, node_ids: list[str], task_ids: list[str]) -> set[str]:
        """Mark resolved the patterns whose tasks were re-run on `node_ids` without any member failure there."""
        rerun, recent = set(task_ids), set(node_ids)
        members = self._members_by_pattern()
        changed = set()
        for pattern in self._patterns():
            if pattern.infra or pattern.status not in (PatternStatus.CANDIDATE, PatternStatus.PROMOTED):
                continue
            if rerun & set(pattern.task_ids) and not any(m.node_id in recent for m in members[pattern.id]):
                self.store.put(
                    pattern.model_copy(update={"status": PatternStatus.RESOLVED, "resolved_at": pattern.last_seen})
                )
                changed.add(pattern.id)
        return changed

    # reading the store

    def _patterns(self, live: bool = True) -> list[Pattern]:
        """The patterns in the order they were opened."""
        rows = self.store.records(Pattern)
        rows = [row for row in rows if row.status.live] if live else rows
        return sorted(rows, key=lambda row: row.number)

    def _members_by_pattern(self) -> dict[str, list[PatternMember]]:
        grouped = defaultdict(list)
        for member in self.store.records(PatternMember, order_by="rowid"):
            grouped[member.pattern_id].append(member)
        return grouped

    def _failures(self) -> dict[str, Failure]:
        return {row.id: row for row in self.store.records(Failure, order_by="rowid") if row.source != "counted"}

    # the steps of `settle`

    def _finish_moves(self) -> set[str]:
        """Members move to where a decision sent them: into the pattern theirs was merged into, or a split-off."""
        patterns = {row.id: row for row in self._patterns(live=False)}
        split_offs = defaultdict(list)
        for row in patterns.values():
            if row.split_from:
                split_offs[row.split_from].append(row)
        failures = self._failures()
        changed = set()
        for pattern_id, members in self._members_by_pattern().items():
            for member in members:
                target = home(pattern_id, failures[member.failure_id].signature, patterns, split_offs)
                if target != pattern_id:
                    self.store.put(member.model_copy(update={"pattern_id": target}))
                    changed |= {pattern_id, target}
        return changed

    def _assign_pending(self) -> set[str]:
        assigned = {member.failure_id for members in self._members_by_pattern().values() for member in members}
        pending = [failure for failure in self._failures().values() if failure.id not in assigned]
        changed = set()
        for failure in pending:
            changed.add(self._assign(failure))
            changed |= self._compare_new()
        return changed

    def _assign(self, failure: Failure) -> str:
        """Join the pattern with the same signature or a very similar one, else open a new pattern."""
        candidates = [p for p in self._patterns() if p.infra == failure.infra]
        scored = [(similarity([failure.signature], p.signatures), p) for p in candidates]
        best_score, best = max(scored, key=lambda pair: pair[0], default=(0.0, None))
        if best is None or best_score < self.config.join_similarity:
            best = self._open(failure)
        self.store.put(
            PatternMember(
                failure_id=failure.id,
                pattern_id=best.id,
                rollout_id=failure.rollout_id,
                task_id=failure.task_id,
                node_id=failure.node_id,
                split=failure.split,
            )
        )
        return best.id

    def _open(self, founder: Failure, **fields: Any) -> Pattern:
        row = Pattern(
            **{
                "id": f"P{len(self._patterns(live=False)) + 1}",
                "description": founder.pattern or "",
                "category": founder.category,
                "signature": founder.signature,
                "signatures": [founder.signature],
                "infra": founder.infra,
                "compared": founder.infra,
                **fields,
            }
        )
        self.store.put(row)
        return row

    def _compare_new(self) -> set[str]:
        """Each pattern not yet compared meets its close calls among the others: the model merges or separates them."""
        changed = set()
        while pattern := next((p for p in self._patterns() if not p.compared), None):
            changed.add(pattern.id)
            for _, other in self._close_calls(pattern):
                if self._same(pattern, other):
                    self._merge(pattern, other)
                    changed.add(other.id)
                    break
                pattern = pattern.model_copy(update={"separate_from": sorted({*pattern.separate_from, other.id})})
                self.store.put(pattern)
            else:
                self.store.put(pattern.model_copy(update={"compared": True}))
        return changed

    def _close_calls(self, pattern: Pattern) -> list[tuple[float, Pattern]]:
        calls = []
        for other in self._patterns():
            kept_apart = other.id in pattern.separate_from or pattern.id in other.separate_from
            if other.id == pattern.id or kept_apart or other.infra != pattern.infra:
                continue
            score = similarity(pattern.signatures, other.signatures)
            if score >= self.config.adjudicate_similarity:
                calls.append((score, other))
        return sorted(calls, key=lambda pair: (-pair[0], pair[1].number))[:CLOSE_CALLS]

    def _same(self, a: Pattern, b: Pattern) -> bool:
        reply = ask(
            self.llm, "merge.md.j2", MergeVerdict, a=a, b=b, a_causes=self._causes(a.id), b_causes=self._causes(b.id)
        )
        return reply.parsed is not None and reply.parsed.same

    def _merge(self, a: Pattern, b: Pattern) -> None:
        """The younger pattern is retired into the older one; its members move (now, or after a crash in `settle`)."""
        young, old = sorted([a, b], key=lambda row: row.number, reverse=True)
        self.store.put(young.model_copy(update={"status": PatternStatus.RETIRED, "merged_into": old.id}))
        self._finish_moves()

    def _causes(self, pattern_id: str) -> list[str]:
        failures = self._failures()
        members = self._members_by_pattern()[pattern_id]
        return [failures[m.failure_id].root_cause for m in members[:EXAMPLES] if m.failure_id in failures]

    def _refresh(self) -> set[str]:
        """Recompute each live pattern from its members; promote (after a split check) and score when due."""
        failures = self._failures()
        members = self._members_by_pattern()
        explained = {failure.split for failure in failures.values()}
        tasks_run = {row.task_id for row in self.store.records(Rollout) if row.split in explained}
        split = {row.split_from for row in self._patterns(live=False)}
        changed = set()
        for pattern in self._patterns():
            group = [failures[m.failure_id] for m in members[pattern.id] if m.failure_id in failures]
            if not group:
                continue
            fields = self._stats(pattern, group, len(tasks_run))
            checked = pattern.verified or pattern.id in split
            if fields["status"] is PatternStatus.PROMOTED and len(fields["signatures"]) > 1 and not checked:
                self._check_split(pattern, group)
                changed.add(pattern.id)
                continue
            if fields["status"] is PatternStatus.PROMOTED and pattern.severity is None:
                fields |= self._score(pattern.model_copy(update=fields))
            if any(getattr(pattern, key) != value for key, value in fields.items()):
                self.store.put(pattern.model_copy(update=fields))
                changed.add(pattern.id)
        return changed

    def _stats(self, pattern: Pattern, group: list[Failure], tasks_run: int) -> dict[str, Any]:
        """The fields of `pattern` its member failures `group` give."""
        tasks = sorted({f.task_id for f in group})
        train_tasks = {f.task_id for f in group if f.split == "train"}
        harness_blame = round(sum(f.blame == "harness" for f in group) / len(group), 3)
        last_seen = max(f.ts for f in group)
        promotable = (
            not pattern.infra
            and len(train_tasks) >= self.config.promotion_support
            and harness_blame >= self.config.min_harness_blame
        )
        if pattern.status is PatternStatus.RESOLVED and last_seen <= (pattern.resolved_at or 0):
            status = PatternStatus.RESOLVED
        else:
            status = PatternStatus.PROMOTED if promotable else PatternStatus.CANDIDATE
        return {
            "status": status,
            "support": len(tasks),
            "task_ids": tasks,
            "members": len(group),
            "node_ids": sorted({f.node_id for f in group if f.node_id}),
            "harness_blame": harness_blame,
            "breadth": round(len(tasks) / max(tasks_run, 1), 3),
            "first_seen": min(f.ts for f in group),
            "last_seen": last_seen,
            "signatures": sorted({pattern.signature, *(f.signature for f in group)}),
        }

    def _check_split(self, pattern: Pattern, group: list[Failure]) -> None:
        """Before a pattern of several signatures is promoted, the model may split off the groups that do not belong."""
        by_signature: dict[str, list[Failure]] = defaultdict(list)
        for failure in group:
            by_signature[failure.signature].append(failure)
        groups = list(by_signature.values())
        shown = [
            {
                "pattern": g[0].pattern,
                "tasks": len({f.task_id for f in g}),
                "causes": [f.root_cause for f in g[:EXAMPLES]],
            }
            for g in groups
        ]
        reply = ask(self.llm, "split.md.j2", SplitVerdict, pattern=pattern, groups=shown)
        keep = {n - 1 for n in reply.parsed.keep if 0 < n <= len(groups)} if reply.parsed else set()
        leave = [g for index, g in enumerate(groups) if index not in keep]
        if not keep or not leave:
            self.store.put(pattern.model_copy(update={"verified": True}))
            return
        self._open(
            leave[0][0],
            split_from=pattern.id,
            separate_from=[pattern.id],
            signatures=sorted({f.signature for g in leave for f in g}),
        )
        self._finish_moves()

    def _score(self, pattern: Pattern) -> dict[str, Any]:
        """The model's phi components of a pattern, asked once; a neutral prior when it gives none."""
        reply = ask(self.llm, "score.md.j2", PatternScore, pattern=pattern, causes=self._causes(pattern.id))
        if reply.parsed is None:
            return {
                "severity": 0.5,
                "fixability": pattern.harness_blame,
                "side_effect_risk": 0.5,
                "score_reason": f"prior (the model gave no score: {reply.error})",
            }
        score = reply.parsed
        return {
            "severity": score.severity,
            "fixability": score.fixability,
            "side_effect_risk": score.side_effect_risk,
            "score_reason": score.reason,
        }


def similarity(signatures: list[str], others: list[str]) -> float:
    """The best rapidfuzz token-sort ratio (0-100) between any two signatures of the two lists."""
    return max((fuzz.token_sort_ratio(a, b) for a in signatures for b in others), default=0.0)


def home(pattern_id: str, signature: str, patterns: dict[str, Pattern], split_offs: dict[str, list[Pattern]]) -> str:
    """Where a member of `pattern_id` with `signature` belongs after the merges and splits decided so far."""
    target, seen = pattern_id, set()
    while target not in seen:
        seen.add(target)
        row = patterns[target]
        if row.status is PatternStatus.RETIRED and row.merged_into:
            target = row.merged_into
            continue
        claimer = next((s for s in split_offs[target] if signature in s.signatures), None)
        target = claimer.id if claimer else target
    return target

"""A parent's pool: its train rewards by (task, trial) key, which the gates of all its children reuse as the parent's
side, and the keys that may never be that side.

Why some keys may not be paired. A gate pairs parent and child on one key, the same task and the same trial seed on
both sides. Under an edit that changes nothing both sides pass a task at the same rate, so at a key neither side has
shown yet a fixed pair (the child passes, the parent fails) is exactly as likely as a broken one, whatever the seed
makes them share. That symmetry is what the sequential test rests on, and it holds only if nothing that chose the key
read either side's outcome there. A pattern's tasks were chosen because the parent failed them on the minibatch's
trial: pairing on those very rollouts counts every chance pass of the child as a fix, and no pass of the parent can
come back as a break (regression to the mean), so an inert child is accepted far too often. The same holds for any
statistic that reads an outcome at a key and then decides to pair there, and for the outcome of another harness at
that key, which shares its seed and so much of its luck.

The rule. A pool marks some keys as *spent*: their outcomes (of any harness) chose something about the gate, such as
the pattern's tasks or the candidate itself. Spent keys are never paired; they are the *guide*, which the task choice
may read freely. The outcomes at other trials of a task are independent draws given the task, so a task's guide
informs its pass rate without biasing its pairs. Every other key of the pool is *sealed*: the gate's choices never
read it before it is paired (it takes each task's trials in a fixed order, so which keys it pairs does not depend on
which ones the pool happens to hold), and once paired it becomes part of what the gate has seen. A key the pool lacks
is bought fresh for the parent and added, so the pool grows only where a gate needs a key.

Reuse across gates. A key paired in one child's gate is the parent's side again in the gate of the next child. What the
next gate conditions on is the earlier verdict; a parent gets another child after its last one was rejected, which
happens more often when the parent did well on the keys paired, so a reused key favours the parent: conservative.

Unpaired keys (a parent reward at a key the child never ran) are not used: every pair is on one key, so no
stratification by task is needed.
"""

from collections.abc import Iterable, Mapping

from pydantic import BaseModel

Key = tuple[str, int]
"""(task id, trial): where one rollout of a harness runs; both sides of a pair run the same key with the same seed."""


class Passes(BaseModel):
    """Passes among scored rollouts of one task."""

    passed: int = 0
    n: int = 0

    def add(self, reward: float) -> None:
        self.passed += reward >= 1
        self.n += 1

    @property
    def failed(self) -> int:
        return self.n - self.passed


class ParentPool:
    """A parent harness's train rewards by key (1.0 a pass), and the keys spent on choosing the gate (never paired)."""

    def __init__(self, rewards: Mapping[Key, float] = {}, spent: Iterable[Key] = ()):
        self.rewards: dict[Key, float] = dict(rewards)
        self.spent: frozenset[Key] = frozenset(spent)

    def guide(self) -> dict[str, Passes]:
        """The parent's passes per task on its spent keys: all the task choice may read before pairing."""
        counts: dict[str, Passes] = {}
        for (task, trial), reward in sorted(self.rewards.items()):
            if (task, trial) in self.spent:
                counts.setdefault(task, Passes()).add(reward)
        return counts

    def next_key(self, task: str, taken: Iterable[int]) -> Key:
        """The task's first trial that is neither spent nor in `taken` (the trials a gate already took): every gate
        takes a task's trials in this one order, whatever the pool holds."""
        skip = set(taken)
        trial = 0
        while (task, trial) in self.spent or trial in skip:
            trial += 1
        return task, trial

    def lacking(self, keys: Iterable[Key]) -> list[Key]:
        """The keys the parent has no reward at yet."""
        return [key for key in keys if key not in self.rewards]

    def add(self, rewards: Mapping[Key, float]) -> None:
        """Fresh parent rollouts a gate bought; spent keys are refused (they can never be paired)."""
        spent = sorted(set(rewards) & self.spent)
        if spent:
            raise ValueError(f"parent rewards at spent keys {spent}: a spent key is never paired, so never bought")
        self.rewards.update(rewards)

"""The analyzer role: one failed rollout in, a FailureRecord out; the triage stands in when the model fails."""

from harness_evo.agent.trajectory import Trajectory
from harness_evo.failures.ask import ask
from harness_evo.failures.digest import digest, fit
from harness_evo.failures.record import TAXONOMY, FailureRecord
from harness_evo.failures.triage import Triage
from harness_evo.llm import LLM

FALLBACK_CONFIDENCE = 0.3


class Analyzer:
    """Explains failed rollouts with the model of the `analyzer` role; each prompt stays under a token budget."""

    def __init__(self, llm: LLM, trace_token_budget: int):
        self.llm = llm
        self.budget = trace_token_budget

    def explain(self, instruction: str, trajectory: Trajectory, found: Triage) -> tuple[FailureRecord, str, str | None]:
        """(record, source, error): source `analyzer`, or `analyzer-failed` with the triage's record and the reason."""
        reply = ask(
            self.llm,
            "analyze.md.j2",
            FailureRecord,
            instruction=fit(instruction, self.budget // 2),
            triage=found.record,
            digest=digest(trajectory, self.budget),
            taxonomy=TAXONOMY,
        )
        if reply.parsed is None:
            confidence = min(found.record.confidence, FALLBACK_CONFIDENCE)
            return found.record.model_copy(update={"confidence": confidence}), "analyzer-failed", reply.error
        record = reply.parsed
        indices = [step.index for step in trajectory.steps] or [0]
        critical = min(max(record.critical_step, min(indices)), max(indices))
        return record.model_copy(update={"critical_step": critical}), "analyzer", None

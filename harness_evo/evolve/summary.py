"""The summary an evolution run ends with (`EvolutionSummary`), which its run row keeps and `RunFinished` carries."""

from harness_evo import stats
from harness_evo.evolve.budget import Budget
from harness_evo.evolve.conditioning import conditioning_summary
from harness_evo.evolve.ledger import Ledger
from harness_evo.evolve.state import LoopState
from harness_evo.evolve.tree import Best
from harness_evo.store import Edit, EditStatus, RunStore
from harness_evo.store.info import DevComparison, EvolutionSummary, ScreenSummary


def summarize(
    store: RunStore,
    stop: str,
    state: LoopState,
    root: str,
    ledger: Ledger,
    budget: Budget,
    alpha: float,
    cost: bool = False,
) -> EvolutionSummary:
    """Why the run stopped, what it tried and accepted, start against best on dev (with the paired test at `alpha` that
    named the best, on passes or, with `cost`, on tokens), how many accepts noise alone would explain (the sum of the
    levels its gates were decided at), the rollouts per gate decision, and what it spent."""
    fates, best, nodes = ledger.fates(), state.best(root, alpha, cost), state.nodes
    gates = sum(n for status, n in fates.items() if EditStatus(status).gated)
    history = ledger.history()
    gated = [edit for edit in history if edit.gate is not None and edit.status.gated]
    decisions = gate_decisions([edit for edit in history if edit.gate is not None])
    start, end = nodes[root], nodes[best.node]
    return EvolutionSummary(
        run_id=store.id,
        stop=stop,
        iterations=state.iteration,
        root=root,
        best_node=best.node,
        start_dev=start.dev_score,
        start_dev_n=start.dev_n,
        best_dev=end.dev_score,
        best_dev_n=end.dev_n,
        dev_comparison=dev_comparison(best),
        gates=gates,
        expected_false_accepts=round(
            stats.expected_false_accepts(edit.gate.alpha if edit.gate.alpha is not None else alpha for edit in gated),
            2,
        ),
        decisions=len(decisions),
        rollouts_per_decision=round(sum(decisions.values()) / len(decisions), 1) if decisions else None,
        proposals=sum(fates.values()),
        fates=fates,
        interrupted=sum(edit.interrupted for edit in history),
        accepted_by_move=ledger.accepted_by_move(),
        nodes=len(nodes),
        rollouts=budget.rollouts(),
        spend=budget.spend(),
        elapsed_s=round(budget.elapsed_s, 1),
        conditioning=conditioning_summary(store, root, best.node),
        screen=screen_summary(history),
    )


def screen_summary(history: list[Edit]) -> ScreenSummary | None:
    """What the screen saw of the edits in `history`, and what the gate made of those it passed on (None when it saw
    none)."""
    looked = [edit for edit in history if edit.screen is not None]
    if not looked:
        return None

    def count(verdict: str, *statuses: EditStatus) -> int:
        return sum(edit.screen.verdict == verdict and edit.status in statuses for edit in looked)

    gated = (EditStatus.ACCEPTED, EditStatus.REJECTED_EMPIRICAL)
    return ScreenSummary(
        looked=len(looked),
        inert=sum(edit.screen.verdict == "inert" for edit in looked),
        dropped=sum(edit.screen.dropped for edit in looked),
        unseen=sum(edit.screen.verdict == "unseen" for edit in looked),
        inert_gated=count("inert", *gated),
        inert_accepted=count("inert", EditStatus.ACCEPTED),
        changed_gated=count("changed", *gated),
        changed_accepted=count("changed", EditStatus.ACCEPTED),
    )


def dev_comparison(best: Best) -> DevComparison | None:
    """The paired dev result of the best node (or the runner-up) against the root, with its verdict."""
    if best.versus_root is None:
        return None
    diff, cost = best.versus_root, best.cost
    verdict = stats.verdict("the starting harness", f"node {best.challenger[:12]}", diff, best.alpha)
    if cost is not None:
        verdict = (
            f"node {best.challenger[:12]} is cheaper than the starting harness at no loss of passes "
            f"({diff.interval()}): {cost.sentence()} <= alpha {best.alpha:g}"
        )
    return DevComparison(
        node=best.challenger,
        shown_gain=best.node == best.challenger,
        alpha=best.alpha,
        **DevComparison.of(diff),
        verdict=verdict,
        cheaper=cost is not None,
        tokens_a=cost.a_mean if cost else None,
        tokens_b=cost.b_mean if cost else None,
        cost_p=cost.p_value if cost else None,
    )


def gate_decisions(gated: list[Edit]) -> dict[tuple[int, str], int]:
    """Each gate decision (an iteration's gating of its node's candidates) -> the rollouts it ran: each edit's
    (`GateResult.rollouts`) and, for the evidence engine, the parent's fresh ones once per decision. A decision the
    run's stop interrupted (one of its edits still `proposed`) is left out: it decided nothing yet."""
    decisions: dict[tuple[int, str], int] = {}
    for edit in gated:
        key, gate = (edit.iteration, edit.parent_id), edit.gate
        parent = gate.evidence.parent_rollouts if gate.evidence and key not in decisions else 0
        decisions[key] = decisions.get(key, 0) + (gate.rollouts or 0) + parent
    cut = {(edit.iteration, edit.parent_id) for edit in gated if edit.interrupted}
    return {key: rollouts for key, rollouts in decisions.items() if key not in cut}

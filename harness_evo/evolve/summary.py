"""The summary an evolution run ends with (`EvolutionSummary`), which its run row keeps and `RunFinished` carries."""

from harness_evo import stats
from harness_evo.evolve.budget import Budget
from harness_evo.evolve.conditioning import conditioning_summary
from harness_evo.evolve.ledger import Ledger
from harness_evo.evolve.state import LoopState
from harness_evo.evolve.tree import Best
from harness_evo.store import EditStatus, RunStore
from harness_evo.store.info import DevComparison, EvolutionSummary


def summarize(
    store: RunStore, stop: str, state: LoopState, root: str, ledger: Ledger, budget: Budget, alpha: float
) -> EvolutionSummary:
    """Why the run stopped, what it tried and accepted, start against best on dev (with the paired test at `alpha` that
    named the best), how many accepts noise alone would explain, and what it spent."""
    fates, best, nodes = ledger.fates(), state.best(root, alpha), state.nodes
    gates = sum(n for status, n in fates.items() if EditStatus(status).gated)
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
        expected_false_accepts=round(stats.expected_false_accepts([alpha] * gates), 2),
        proposals=sum(fates.values()),
        fates=fates,
        accepted_by_move=ledger.accepted_by_move(),
        nodes=len(nodes),
        rollouts=budget.rollouts(),
        spend=budget.spend(),
        elapsed_s=round(budget.elapsed_s, 1),
        conditioning=conditioning_summary(store, root, best.node),
    )


def dev_comparison(best: Best) -> DevComparison | None:
    """The paired dev result of the best node (or the runner-up) against the root, with its verdict."""
    if best.versus_root is None:
        return None
    diff = best.versus_root
    return DevComparison(
        node=best.challenger,
        shown_gain=best.node == best.challenger,
        alpha=best.alpha,
        **DevComparison.of(diff),
        verdict=stats.verdict("the starting harness", f"node {best.challenger[:12]}", diff, best.alpha),
    )

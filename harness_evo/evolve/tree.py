"""The search tree: harness versions (content hashes) joined by accepted edits; a projection of `nodes`.

Rejected edits never become nodes; they stay in the `edits` ledger of their parent. Which node is
expanded next is a policy (`NodeSelector`), chosen by name in `SearchConfig.strategy`.
"""

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

import networkx as nx

from harness_evo import stats
from harness_evo.config import SearchConfig
from harness_evo.store import Node, RunStore


class SearchTree:
    """The tree's `Node` records, joined parent to child by their accepted edits (a networkx graph of node ids)."""

    def __init__(self, nodes: Iterable[Node] = ()):
        self.graph = nx.DiGraph()
        self.records: dict[str, Node] = {}
        for node in nodes:
            self.add(node)

    @classmethod
    def load(cls, store: RunStore) -> "SearchTree":
        return cls(store.records(Node, order_by="created"))

    def add(self, node: Node) -> None:
        """Add or update a node."""
        self.records[node.id] = node
        self.graph.add_node(node.id)
        if node.parent_id:
            self.graph.add_edge(node.parent_id, node.id)

    def __contains__(self, node: str) -> bool:
        return node in self.records

    def __len__(self) -> int:
        return len(self.records)

    def node(self, node: str) -> Node:
        return self.records[node]

    def nodes(self) -> list[Node]:
        """Every node in the order it was created."""
        return sorted(self.records.values(), key=lambda row: (row.iteration or 0, row.created or 0))

    @property
    def root(self) -> str:
        return next(node for node in self.graph if self.graph.in_degree(node) == 0)

    def lineage(self, node: str) -> list[str]:
        """The path from the root to `node`."""
        return nx.shortest_path(self.graph, self.root, node)

    def highest_dev(self) -> str:
        """The node with the highest dev score, ties broken by fewer tokens per rollout, then by age (not the run's
        best: see `name_best`)."""
        scored = [row for row in self.nodes() if row.dev_score is not None]
        if not scored:
            return self.root
        return min(scored, key=lambda row: (-row.dev_score, row.tokens_per_rollout or 0.0)).id


DevOutcomes = Mapping[str, Mapping[tuple[str, int], float]]
"""Node -> (dev task, trial) -> reward."""


@dataclass(frozen=True)
class Best:
    """The run's best node (its result) and the paired dev comparison that named it (against the node closest to
    beating the root when none did)."""

    node: str
    versus_root: stats.Difference | None
    """The best node (or the runner-up when the root stays best) minus the root on the dev keys both ran."""
    challenger: str | None
    """The node `versus_root` is about; None when no other node was scored on dev."""
    alpha: float
    """The level each node was tested at: the run's alpha split over the nodes compared with the root."""
    cost: stats.CostDifference | None = None
    """The best node's tokens against the root's on dev, when it was named best for costing less."""


def name_best(
    root: str,
    dev: DevOutcomes,
    tokens: Mapping[str, float | None],
    alpha: float,
    costs: DevOutcomes | None = None,
) -> Best:
    """The root, unless some node beats it on dev by the paired sign test at `alpha` split over the nodes compared
    (Bonferroni, so that naming a node best is itself a test at `alpha`); among those that do, the best dev score, ties
    broken by fewer tokens per rollout. With `costs` (node -> dev key -> tokens) and no node beating the root, a node
    no worse than the root on dev whose rollouts cost fewer tokens on the keys both ran, by the one-sided sign test at
    the same split alpha, is best (the cheapest of them)."""
    base = dev.get(root, {})
    compared = {}
    for node, outcomes in dev.items():
        if node != root and base.keys() & outcomes.keys():
            compared[node] = stats.paired_on(base, outcomes)
    each = alpha / max(1, len(compared))
    rank = {node: (-diff.b_rate, tokens.get(node) or 0.0) for node, diff in compared.items()}
    winners = [node for node, diff in compared.items() if diff.diff > 0 and diff.significant(each)]
    if winners:
        best = min(winners, key=rank.__getitem__)
        return Best(best, compared[best], best, each)
    if costs is not None:
        cheaper = {
            node: stats.cheaper_on(costs.get(root, {}), costs.get(node, {}))
            for node, diff in compared.items()
            if diff.diff >= 0
        }
        cheapest = min(
            (node for node, cost in cheaper.items() if cost.significant(each)),
            key=lambda node: cheaper[node].b_mean,
            default=None,
        )
        if cheapest is not None:
            return Best(cheapest, compared[cheapest], cheapest, each, cheaper[cheapest])
    challenger = min(compared, key=lambda node: (-compared[node].diff, *rank[node]), default=None)
    return Best(root, compared.get(challenger) if challenger else None, challenger, each)


class NodeSelector(Protocol):
    def select(self, tree: SearchTree) -> str:
        """The node to expand next."""
        ...


class UCB:
    """Upper confidence bound on train score: good nodes are expanded, rarely expanded ones get their turn."""

    def __init__(self, exploration: float = 1.0):
        self.exploration = exploration

    def select(self, tree: SearchTree) -> str:
        nodes = tree.nodes()
        total = sum(row.expansions for row in nodes)

        def bound(row: Node) -> float:
            if row.train_score is None:
                return math.inf
            return row.train_score + self.exploration * math.sqrt(math.log(total + 1) / (row.expansions + 1))

        return max(nodes, key=bound).id


class Greedy:
    """Always the best train score; among equals the least expanded, then the oldest."""

    def select(self, tree: SearchTree) -> str:
        return min(
            tree.nodes(),
            key=lambda row: (-(row.train_score if row.train_score is not None else math.inf), row.expansions),
        ).id


def node_selector(config: SearchConfig) -> NodeSelector:
    return {"ucb": lambda: UCB(config.exploration), "greedy": Greedy}[config.strategy]()

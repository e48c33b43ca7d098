"""Which harness version of a run a name means (`best`, `root` or a hash prefix), and its harness.

Read from `run.db` and the snapshots beside it only; `compare`, `export`, `harvest` and the views all name nodes here.
`Harnesses` is the loop's harness store: the harness of each node, loaded once.
"""

from pathlib import Path

from harness_evo.errors import UserError
from harness_evo.evolve.tree import SearchTree
from harness_evo.harness import Harness
from harness_evo.store import Node, RunStore


def snapshot_ids(store: RunStore) -> list[str]:
    folder = store.folder / "harnesses"
    return (
        sorted(path.name for path in folder.iterdir() if path.is_dir() and path.suffix != ".partial")
        if folder.is_dir()
        else []
    )


def node_ids(store: RunStore) -> list[str]:
    """Every harness version a run knows: its tree's nodes and the snapshots in its folder."""
    known = {node.id for node in store.records(Node)}
    evaluated = store.info.harness_hash
    return sorted(known | set(snapshot_ids(store)) | ({evaluated} if evaluated else set()))


def best(store: RunStore) -> str | None:
    """The run's best node (its result): `best_node` of the run row, else (a run from before it was recorded) the node
    with the highest dev score, else the evaluated harness."""
    info = store.info
    if info.best_node:
        return info.best_node
    nodes = store.records(Node)
    if nodes:
        return SearchTree(nodes).highest_dev()
    return info.harness_hash or info.root


def root(store: RunStore) -> str | None:
    """The run's starting harness."""
    info = store.info
    roots = [node.id for node in store.records(Node, parent_id=None)]
    return info.root or (roots[0] if roots else None) or info.harness_hash


def resolve_node(store: RunStore, spec: str) -> str:
    """A node id from `best`, `root` or a unique prefix of a harness hash."""
    if spec in ("best", "root"):
        found = best(store) if spec == "best" else root(store)
        if not found:
            raise UserError(f"run {store.id} has no {spec} node yet (no harness was scored)")
        return found
    matches = [node for node in node_ids(store) if node.startswith(spec)] if spec else []
    if len(matches) != 1:
        found = "no node" if not matches else f"{len(matches)} nodes"
        raise UserError(f"{found} starting with {spec!r} in run {store.id}; `harness-evo tree {store.id}` lists them")
    return matches[0]


def harness_of(store: RunStore, node: str) -> Harness:
    """The harness of a node: its snapshot in the run folder,
    or for an eval run the folder it evaluated (if unchanged)."""
    snapshot = store.folder / "harnesses" / node
    if snapshot.is_dir():
        return Harness.load(snapshot)
    source = store.info.harness
    if source and Path(source).is_dir():
        harness = Harness.load(Path(source))
        if harness.hash == node:
            return harness
    raise UserError(
        f"run {store.id} has no snapshot of {node[:12]} (harnesses/{node} is missing) and its source folder changed "
        "since"
    )


class Harnesses:
    """The harness store of a run's loop: each node's harness, from its snapshot in the run folder, loaded once; a
    child a move made is added before it has a snapshot."""

    def __init__(self, store: RunStore, *known: Harness):
        self.folder = store.folder / "harnesses"
        self.loaded = {harness.hash: harness for harness in known}

    def __getitem__(self, node: str) -> Harness:
        if node not in self.loaded:
            self.loaded[node] = Harness.load(self.folder / node)
        return self.loaded[node]

    def add(self, harness: Harness) -> None:
        self.loaded[harness.hash] = harness

"""The import rules of docs/design.md hold: no import cycle between harness_evo's modules, and no module imports one of
a higher layer. The layers are read from the design page itself, so the page and the code cannot drift apart."""

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).parents[1]
DESIGN = ROOT / "docs" / "design.md"


@dataclass(frozen=True)
class Import:
    """`source` imports `target` (both dotted module names) at `line` of the source's `file`."""

    source: str
    target: str
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line} imports {self.target}"


def read_layers(design: Path) -> list[list[str]]:
    """The layers of the design page's block under '## The layers', lowest first: each a list of top-level modules and
    sub-packages (a line that starts with a name begins a layer; an indented line continues the one above)."""
    block = design.read_text().split("## The layers", 1)[1].split("```", 2)[1]
    rows = [line for line in block.splitlines() if line.strip() and not line[0].isspace()]
    return [[name.strip() for name in re.split(r"\s{2,}", row, maxsplit=1)[0].split(",")] for row in rows]


def modules(package: Path) -> dict[str, Path]:
    """Every module of the package folder by dotted name (a sub-package by its `__init__.py`)."""
    found = {}
    for file in sorted(package.rglob("*.py")):
        parts = file.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = file
    return found


def imports(package: Path) -> list[Import]:
    """Every import of one of the package's modules by another, wherever it stands (in a function too): the module a
    name comes from, or the imported name itself when it is a module."""
    known, found = modules(package), {}
    for name, file in known.items():
        here = name if file.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(file.read_text(), str(file))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(here.split(".")[: len(here.split(".")) - node.level + 1]) if node.level else ""
                origin = ".".join(part for part in (base, node.module or "") if part)
                targets = [
                    f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in known else origin for alias in node.names
                ]
            else:
                continue
            for target in targets:
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != name and target != package.name:
                    found[Import(name, target, file.relative_to(package.parent).as_posix(), node.lineno)] = None
    return list(found)


def cycles(found: list[Import]) -> list[list[Import]]:
    """The imports that close a cycle, one list per group of modules that import each other round."""
    graph = nx.DiGraph((edge.source, edge.target) for edge in found)
    groups = [group for group in nx.strongly_connected_components(graph) if len(group) > 1]
    return [
        sorted(
            (edge for edge in found if edge.source in group and edge.target in group),
            key=lambda edge: (edge.file, edge.line),
        )
        for group in groups
    ]


def unit(module: str) -> str:
    """The top-level module or sub-package a module belongs to: `harness_evo.agent.runners` -> `agent`."""
    return module.split(".")[1]


def arrows_up(found: list[Import], layers: list[list[str]]) -> list[str]:
    """The imports of a module of a higher layer, each with the two layers named (modules in no layer are left to
    `unplaced`)."""
    floor = {name: level for level, row in enumerate(layers) for name in row}
    placed = [
        (edge, floor[unit(edge.source)], floor[unit(edge.target)])
        for edge in found
        if unit(edge.source) in floor and unit(edge.target) in floor
    ]
    return [
        f"{edge} (layer {high + 1}, {unit(edge.target)}, is above layer {low + 1}, {unit(edge.source)})"
        for edge, low, high in placed
        if high > low
    ]


def unplaced(package: Path, layers: list[list[str]]) -> list[str]:
    """The package's top-level modules and sub-packages that no layer names."""
    placed = {name for row in layers for name in row}
    return sorted({unit(name) for name in modules(package) if name != package.name} - placed)


def test_every_module_of_harness_evo_is_in_a_layer_of_the_design_page():
    layers = read_layers(DESIGN)

    assert len(layers) > 3, "docs/design.md has no block of layers under '## The layers'"
    if found := unplaced(ROOT / "harness_evo", layers):
        pytest.fail(f"docs/design.md's layers do not name: {', '.join(found)}", pytrace=False)


def test_no_module_of_harness_evo_imports_one_of_a_higher_layer():
    if found := arrows_up(imports(ROOT / "harness_evo"), read_layers(DESIGN)):
        pytest.fail("imports that point up the layers of docs/design.md:\n" + "\n".join(found), pytrace=False)


def test_no_import_cycle_between_modules_of_harness_evo():
    if found := cycles(imports(ROOT / "harness_evo")):
        pytest.fail(
            "import cycles, each the imports that close it:\n"
            + "\n".join("; ".join(map(str, cycle)) for cycle in found),
            pytrace=False,
        )


def test_the_check_finds_a_cycle_and_an_arrow_up_in_a_package_that_has_them(tmp_path: Path):
    package = tmp_path / "pkg"
    (package / "low").mkdir(parents=True)
    (package / "high").mkdir()
    (package / "__init__.py").write_text("")
    (package / "low" / "__init__.py").write_text("from pkg.low.a import A\n")
    (package / "low" / "a.py").write_text("A = 1\n\ndef late():\n    from . import b\n    from pkg.high import c\n")
    (package / "low" / "b.py").write_text("from pkg.low import a\nimport pkg.low\n")
    (package / "high" / "__init__.py").write_text("from ..low import b\n")
    (package / "high" / "c.py").write_text("C = 3\n")
    layers = [["low"], ["high"]]

    found = imports(package)

    assert not unplaced(package, layers) and unplaced(package, [["low"]]) == ["high"]
    assert [list(map(str, cycle)) for cycle in cycles(found)] == [
        [
            "pkg/low/__init__.py:1 imports pkg.low.a",
            "pkg/low/a.py:4 imports pkg.low.b",
            "pkg/low/b.py:1 imports pkg.low.a",
            "pkg/low/b.py:2 imports pkg.low",
        ]
    ]
    assert arrows_up(found, layers) == ["pkg/low/a.py:5 imports pkg.high.c (layer 2, high, is above layer 1, low)"]

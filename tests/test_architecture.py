"""The dependency rule of docs/architecture.md, read from the code's imports (``ast``, every import statement,
including those inside functions):

1. definitions do not depend on checks: nothing in ``constructions/`` imports ``verify``, ``counterexamples``
   or ``bounds``;
2. no import cycle among the modules of one top-level package (e.g. ``constructions.crasp.ast`` <->
   ``constructions.crasp.syntax``);
3. the command-line convention ``lengthgen_cli`` imports none of the other packages (every layer uses it);
4. inside ``bounds/``, three rooms in one order: the theorem (``bounds.*``), the certificate (``bounds.certify``)
   and the experiments (``bounds.experiments``).  The experiments may use the theorem and the certificate, the
   certificate may use the theorem, and never the reverse.

Each rule ships with a negative control: the same checker run on a synthetic tree that violates it.
"""

from __future__ import annotations

from pathlib import Path

from verify.inputs import PACKAGES, imports_of, module_name

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ("verify", "counterexamples", "bounds")
UTILITIES = ("lengthgen_cli",)


def import_graph(root: Path, packages=PACKAGES) -> dict[str, set[str]]:
    graph = {}
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            graph[module_name(root, path)] = imports_of(root, path)
    return graph


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Imports from constructions/ into a checking package."""
    return sorted(f"{m} imports {t}" for m, ts in graph.items() if m.split(".")[0] == "constructions"
                  for t in ts if t.split(".")[0] in CHECKS)


def utility_violations(graph: dict[str, set[str]]) -> list[str]:
    """Imports from a utility package into any other package of ours."""
    ours = set(PACKAGES)
    return sorted(f"{m} imports {t}" for m, ts in graph.items() if m.split(".")[0] in UTILITIES
                  for t in ts if t.split(".")[0] in ours - {m.split(".")[0]})


def bounds_room(module: str) -> int | None:
    """Rank of the room of ``bounds`` that holds ``module``: 0 theorem, 1 certificate, 2 experiments."""
    for rank, room in ((2, "bounds.experiments"), (1, "bounds.certify"), (0, "bounds")):
        if module == room or module.startswith(room + "."):
            return rank
    return None


def bounds_room_violations(graph: dict[str, set[str]]) -> list[str]:
    """Imports from a room of ``bounds`` into a later one (theorem -> certificate or experiments, certificate ->
    experiments)."""
    return sorted(f"{m} imports {t}" for m, ts in graph.items() if bounds_room(m) is not None
                  for t in ts if bounds_room(t) is not None and bounds_room(t) > bounds_room(m))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module, among modules of the same top-level package
    (an import of a package's ``__init__`` from inside it is not counted: Python runs it first anyway)."""
    edges = {m: {t for t in ts if t in graph and t.split(".")[0] == m.split(".")[0] and not m.startswith(t + ".")}
             for m, ts in graph.items()}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_constructions_import_no_checks():
    graph = import_graph(ROOT)
    assert "constructions.crasp.ast" in graph and "constructions.golowich.model" in graph  # the walk saw the tree
    assert layer_violations(graph) == []


def test_cli_convention_imports_nothing_of_ours():
    graph = import_graph(ROOT)
    assert "lengthgen_cli.parser" in graph
    assert utility_violations(graph) == []


def test_bounds_rooms_theorem_certificate_experiments():
    graph = import_graph(ROOT)
    assert {"bounds.estimate", "bounds.certify.search", "bounds.experiments.measure"} <= set(graph)
    assert bounds_room_violations(graph) == []


def test_no_import_cycle_inside_a_package():
    assert cycles(import_graph(ROOT)) == []


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_negative_controls_flag_a_violating_tree(tmp_path):
    _write(tmp_path, {
        "constructions/__init__.py": "",
        "constructions/bad.py": "def f():\n    from bounds.margin import logit_margin\n",
        "constructions/rel.py": "from ..verify import claims\n",
        "constructions/a.py": "from constructions import b\n",
        "constructions/b.py": "def g():\n    from .a import x\n",
        "bounds/__init__.py": "",
        "bounds/margin.py": "from constructions import a\ndef f():\n    from bounds.certify.search import s\n",
        "bounds/certify/__init__.py": "",
        "bounds/certify/search.py": "from bounds.experiments import figures\n",
        "bounds/experiments/__init__.py": "",
        "bounds/experiments/figures.py": "import json\n",
        "bounds/experiments/measure.py": "import bounds.certify.search\n",
        "verify/__init__.py": "",
        "verify/claims.py": "",
        "counterexamples/__init__.py": "",
        "lengthgen_cli/__init__.py": "from constructions import a\n",
    })
    graph = import_graph(tmp_path)
    assert layer_violations(graph) == ["constructions.bad imports bounds.margin", "constructions.rel imports verify.claims"]
    assert cycles(graph) == [["constructions.a", "constructions.b"]]
    assert utility_violations(graph) == ["lengthgen_cli imports constructions.a"]
    assert bounds_room_violations(graph) == ["bounds.certify.search imports bounds.experiments.figures",
                                             "bounds.margin imports bounds.certify.search"]

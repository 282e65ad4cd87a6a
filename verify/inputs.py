"""What a claim's checks read: their test files, the modules of ours those import (the import closure) and digests.

A mutation record (:mod:`verify.mutate`) is keyed on the sha256 digests of the files that decided it: the mutated
file, the claim's linked test files, the ``conftest.py`` files pytest loads for them and every module of our packages
(:data:`PACKAGES`) that the test files import, directly or through each other (every ``import`` statement, also
inside functions, read with ``ast``; a module's package ``__init__.py`` files count, Python runs them first).  When
any of them changes the record no longer judges the code that is there now, and :mod:`verify.status` says
``stale`` (with the file) instead of ``verified``.

The same reading of imports serves the dependency rule of docs/architecture.md (tests/test_architecture.py).

*Library code* (:func:`is_library`) is what the package ships for users: ``constructions/``, ``bounds/``,
``counterexamples/``, ``lengthgen_cli/`` and the parts of ``verify/`` that are tools (the proof kernel
``verify/kernel.py``, ``verify/identify.py``, ...), not the proof scripts of the papers (``verify/ahuja/``,
``verify/golowich/``, ``verify/huang/``, ``verify/izzo/``), the claim registry or the tests.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable
from pathlib import Path

from verify.results import BASE

#: the top-level packages of ours (an import of anything else is not followed)
PACKAGES = ("constructions", "verify", "counterexamples", "bounds", "lengthgen_cli")
#: folders of ``verify/`` that hold proof scripts, claim declarations or tests: not library code
PROOF_SCRIPTS = ("verify/ahuja/", "verify/golowich/", "verify/huang/", "verify/izzo/", "verify/registry/",
                 "verify/tests/")
#: library code and data a claim's statement can be about: the subject packages, the identification tools of
#: ``verify/`` and the package's committed results (the proof kernel only checks proofs: a claim whose checks run
#: nothing but the kernel and its proof script is about no library code)
SUBJECT_PACKAGES = ("constructions/", "bounds/", "counterexamples/", "verify/identify.py", "verify/activation_expr.py",
                    "docs/results/")


def module_name(root: Path, path: Path) -> str:
    """The dotted module name of ``path`` under ``root`` (a package's ``__init__.py`` names the package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(root: Path, path: Path) -> set[str]:
    """Every module named by an import in ``path`` (relative imports resolved; ``from p import m`` gives p.m
    when p.m is a module of the tree, else p)."""
    me = module_name(root, path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for a in node.names:
                sub = root.joinpath(*f"{target}.{a.name}".split("."))
                full = f"{target}.{a.name}"
                out.add(full if sub.with_suffix(".py").exists() or (sub / "__init__.py").exists() else target)
    return out


def module_file(root: Path, name: str) -> Path | None:
    """The file of module ``name`` under ``root`` (None when it is not one of ours)."""
    if name.split(".")[0] not in PACKAGES:
        return None
    p = root.joinpath(*name.split("."))
    for cand in (p.with_suffix(".py"), p / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _with_packages(root: Path, path: Path) -> list[Path]:
    """``path`` and the ``__init__.py`` of every package above it (up to ``root``)."""
    out = [path]
    d = path.parent
    while d != root and root in d.parents:
        if (d / "__init__.py").is_file():
            out.append(d / "__init__.py")
        d = d.parent
    return out


class Reader:
    """Reads imports and digests of files, each file once (one report or one mutation run: files do not change
    while it reads them)."""

    def __init__(self, root: Path = BASE):
        self.root = root
        self._imports: dict[Path, set[str]] = {}
        self._digests: dict[Path, str] = {}

    def imports(self, path: Path) -> set[str]:
        if path not in self._imports:
            self._imports[path] = imports_of(self.root, path)
        return self._imports[path]

    def digest(self, path: Path) -> str:
        if path not in self._digests:
            self._digests[path] = digest(path)
        return self._digests[path]


def closure(files: Iterable[Path], root: Path = BASE, reader: Reader | None = None) -> set[Path]:
    """``files``, every module of ours they import (transitively, with their packages' ``__init__.py``) and the
    ``conftest.py`` files pytest loads for them (from ``root`` down to each file's folder)."""
    reader = reader or Reader(root)
    todo = [p for f in files for p in _with_packages(root, Path(f).resolve())]
    seen: set[Path] = set()
    for f in list(todo):
        d = f.parent
        while d == root or root in d.parents:
            if (d / "conftest.py").is_file():
                todo.append(d / "conftest.py")
            if d == root:
                break
            d = d.parent
    while todo:
        f = todo.pop()
        if f in seen or not f.is_file():
            continue
        seen.add(f)
        if f.suffix != ".py":
            continue
        for name in reader.imports(f):
            m = module_file(root, name)
            if m is not None and m not in seen:
                todo.extend(_with_packages(root, m))
    return seen


def digest(path: Path) -> str:
    """sha256 of the file's bytes ("missing" when it does not exist)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except FileNotFoundError:
        return "missing"


def rel(path: Path, root: Path = BASE) -> str:
    """``path`` relative to ``root`` (posix), as records store it; absolute for a file outside ``root``."""
    p = Path(path).resolve()
    try:
        return p.relative_to(root).as_posix()
    except ValueError:
        return p.as_posix()


def inputs(test_files: Iterable[str], also: Iterable[str] = (), root: Path = BASE,
           reader: Reader | None = None) -> dict[str, str]:
    """Relative path -> sha256 of every file a claim's checks read: the ``test_files`` (relative to ``root``),
    their import closure and conftest files, and ``also`` (e.g. the mutated file, data or code)."""
    reader = reader or Reader(root)
    files = closure([root / t for t in test_files], root, reader) | {(root / a).resolve() for a in also}
    return {rel(f, root): reader.digest(f) for f in sorted(files)}


def changed(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """The files whose digest differs between a record and now, that the checks read now but the record did not
    see (a new import, a new test file), or that the record saw and the checks no longer read (a test unlinked)."""
    return sorted(f for f in set(recorded) | set(current) if recorded.get(f) != current.get(f))


def is_library(path: str) -> bool:
    """Whether the file ``path`` (relative to the package root) is library code, not a proof script, the claim
    registry or a test (see the module docstring)."""
    return not path.startswith(PROOF_SCRIPTS) and not path.startswith("tests/")


def about_library(files: Iterable[str]) -> bool:
    """Whether a claim whose checks read ``files`` (their import closure, and the data files its mutations edit)
    runs code or data of the package (:data:`SUBJECT_PACKAGES`)."""
    return any(f.startswith(SUBJECT_PACKAGES) for f in files)

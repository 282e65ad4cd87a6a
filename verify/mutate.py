"""``python -m verify.mutate``: show that claim checks can fail, by running them against mutated code or data.

A :class:`Mutation` names the claims whose linked checks must reject it and one exact edit of a file of the
package (a dropped hypothesis, a changed constant, a swapped comparison, doubled data): ``old`` must occur
exactly once in ``path``.  Mutations are declared with :func:`mutation` in :mod:`verify.registry.mutations` and
:mod:`verify.registry.mutations_library` (a campaign of plausible single edits of library code, docs/mutation_campaign.md).

The runner copies the source tree once into a temporary directory, then for each mutation writes the edited
file, runs the claims' required (non-``slow``) linked tests there in one fresh pytest process (the copy comes
first on ``sys.path``; every test's outcome recorded) and restores the file.  The processes are forked from a
server that has imported pytest, numpy, sympy, scipy, z3 and Hypothesis once (:mod:`verify.forkserver`; a plain
subprocess per run where ``os.fork`` is missing), and a run stops as soon as every claim of the mutation has a
failed check, skipping the checks that serve only claims already caught (:mod:`verify.mutation_stop`).  Each claim
of a mutation is judged on its own linked checks only, so a claim gets no credit for a neighbour's check:
``caught`` when one of them failed; ``survived`` when they all passed (or were skipped); ``error`` when the edit
does not apply, pytest cannot run them, or one of a claim not caught left no outcome.  A baseline run on the unmutated copy comes first;
if it fails, no mutation result is recorded (a failing check catches everything).  Each result is merged into
the results file (:mod:`verify.results`) as soon as it is known, so an interrupted run keeps what it did;
``--resume`` skips mutations already recorded with their current definition.

Why a registry of our own rather than mutmut or cosmic-ray: those mutate every operator of the source and
run the whole suite per mutant (thousands of mutants on this code base, hours on two cores), do not map a
mutant to the paper claim whose checks must catch it, and cannot mutate data files (committed training
results).  Here each mutation is chosen to break the hypothesis or constant a claim depends on, and the run
over all of them takes minutes (verify/registry/mutations.py lists the measured time).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from lengthgen_cli import Parser, usage_errors
from lengthgen_cli.output import check_target
from lengthgen_cli.parser import command
from lengthgen_cli.types import finite_real
from verify.inputs import Reader, inputs
from verify.results import BASE, ResultsError, merge, results_path
from verify.results import load as load_results


class MutationError(ValueError):
    """A mutation is malformed, declared twice, or names an unknown claim."""


@dataclass(frozen=True)
class Mutation:
    """One edit that the linked checks of ``claims`` must reject.

    name:   unique identifier, e.g. ``huang-round-ties-away``.
    claims: the claim keys whose checks must fail on the mutated code.
    path:   the file to edit, relative to the directory holding the packages (e.g.
            ``constructions/limit_transformer/precision.py``).
    old:    text occurring exactly once in the file; replaced by ``new``.
    why:    what the edit breaks (the hypothesis dropped, the constant changed, ...).
    """

    name: str
    claims: tuple[str, ...]
    path: str
    old: str
    new: str
    why: str

    @property
    def spec(self) -> str:
        """Digest of the definition: a recorded result counts only while the definition is unchanged."""
        text = "\0".join((self.path, self.old, self.new, *self.claims))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def apply(self, text: str) -> str:
        """The mutated file text; :class:`MutationError` unless ``old`` occurs exactly once."""
        n = text.count(self.old)
        if n != 1:
            raise MutationError(f"mutation {self.name}: the text to replace occurs {n} times in {self.path}")
        return text.replace(self.old, self.new)


_MUTATIONS: dict[str, Mutation] = {}


def mutation(name: str, claims: str | tuple[str, ...] | list[str], path: str, old: str, new: str,
             why: str) -> Mutation:
    """Declare a mutation (see :class:`Mutation`)."""
    keys = (claims,) if isinstance(claims, str) else tuple(claims)
    if name in _MUTATIONS:
        raise MutationError(f"mutation {name!r} is declared twice")
    if not keys or old == new:
        raise MutationError(f"mutation {name!r} needs claims and an edit that changes the text")
    m = Mutation(name, keys, path, old, new, why)
    _MUTATIONS[name] = m
    return m


def all_mutations() -> dict[str, Mutation]:
    """Every declared mutation (loads the claim registry, where they are declared)."""
    from verify.claims import load_all

    claims = load_all()
    for m in _MUTATIONS.values():
        unknown = [k for k in m.claims if k not in claims]
        if unknown:
            raise MutationError(f"mutation {m.name} names unknown claim(s) {unknown}")
    return dict(_MUTATIONS)


def declared_for(key: str) -> dict[str, tuple[str, str]]:
    """The mutations declared against claim ``key``: name -> (spec digest, mutated path)."""
    return {m.name: (m.spec, m.path) for m in all_mutations().values() if key in m.claims}


def judged_inputs(m: Mutation, key: str, tests: dict[str, dict[str, bool]], root: Path = BASE,
                  reader: Reader | None = None) -> dict[str, str]:
    """Digests of the files that decide mutation ``m``'s run on claim ``key``: the mutated file, the claim's
    required test files and what they import (:func:`verify.inputs.inputs`)."""
    files = sorted({n.split("::", 1)[0] for n in required_nodes(key, tests)})
    return inputs(files, also=[m.path], root=root, reader=reader)


def _copy_tree(dest: Path) -> None:
    ignore = shutil.ignore_patterns(".git", "__pycache__", ".hypothesis", "*.egg-info", ".ruff_cache", "build")
    for entry in BASE.iterdir():
        if entry.name.startswith(".") and entry.name != ".ci":
            continue
        if entry.is_dir():
            if (entry / "__init__.py").exists() or entry.name in ("docs", "scripts", "tests"):
                shutil.copytree(entry, dest / entry.name, ignore=ignore)
        elif entry.suffix in (".py", ".toml", ".cfg", ".ini"):
            shutil.copy2(entry, dest / entry.name)


class _Pytest:
    """Runs pytest on the copy: through the fork server (:mod:`verify.forkserver`, the third-party libraries imported
    once) where ``os.fork`` exists, else, or when the server has died, one subprocess per run."""

    def __init__(self, copy: Path):
        self.copy = copy
        self.env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=str(copy),
                        LENGTHGEN_HYPOTHESIS_PROFILE="mutation")
        self.server = None
        if hasattr(os, "fork"):
            self.server = subprocess.Popen([sys.executable, "-m", "verify.forkserver"], cwd=copy, env=self.env,
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                           text=True)

    def close(self) -> None:
        if self.server is not None:
            self.server.stdin.close()
            self.server.wait()
            self.server = None

    def run(self, nodes: list[str], timeout: float, record: Path | None = None,
            nodes_of: dict[str, list[str]] | None = None) -> int:
        """Run ``nodes``; the exit code (-1 on timeout).

        With ``record`` every outcome is written there (the plugin's results file) and, given the claims' checks
        ``nodes_of``, the run stops once every claim has a failed check (:mod:`verify.mutation_stop`); without it
        the run stops at the first failure (``-x``) and records nothing."""
        how = ["-x", "--no-claim-results"] if record is None else [f"--claim-results={record}"]
        args = ["-q", *how, "-p", "no:cacheprovider", "-p", "verify.pytest_plugin", "-p", "verify.mutation_stop",
                "--rootdir", str(self.copy), "-W", "ignore", *nodes]
        if (self.copy / "pyproject.toml").exists():
            args[:0] = ["-c", str(self.copy / "pyproject.toml")]
        from verify.mutation_stop import ENV

        extra = {ENV: json.dumps(nodes_of)} if nodes_of else {}
        if self.server is not None:
            try:
                self.server.stdin.write(json.dumps({"args": args, "env": extra, "timeout": timeout}) + "\n")
                self.server.stdin.flush()
                reply = self.server.stdout.readline()
                if reply:
                    return int(json.loads(reply)["rc"])
            except (OSError, ValueError):
                pass
            self.server = None  # the server died: one subprocess per run from now on
        try:
            return subprocess.run([sys.executable, "-m", "pytest", *args], cwd=self.copy, env={**self.env, **extra},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return -1


def _judge(runner: _Pytest, nodes_of: dict[str, list[str]], timeout: float) -> dict[str, str]:
    """One pytest run of every claim's required checks on the mutated copy; each claim is judged on its own
    checks only (``caught`` when one of them failed), so a claim gets no credit for a neighbour's check.  The run
    stops once every claim has a failed check; a claim not caught is judged on all its checks."""
    copy = runner.copy
    record = copy / ".mutation-outcomes.json"
    record.unlink(missing_ok=True)
    nodes = sorted({n for ns in nodes_of.values() for n in ns})
    rc = runner.run([str(copy / n) for n in nodes], timeout, record, nodes_of) if nodes else None
    if rc not in (0, 1):
        return dict.fromkeys(nodes_of, "error")
    outcomes = {n: e["outcome"] for n, e in load_results(record)["tests"].items()}
    judged = {}
    for key, ns in nodes_of.items():
        got = [outcomes.get(n) for n in ns]
        judged[key] = ("error" if not ns else "caught" if "failed" in got else "error" if None in got else "survived")
    return judged


def required_nodes(key: str, tests: dict[str, dict[str, bool]]) -> list[str]:
    """The node keys of the required (non-slow, or all when every one is slow) checks of claim ``key``."""
    linked = tests.get(key, {})
    return [n for n, slow in linked.items() if not slow] or list(linked)


def run(selected: list[Mutation], results: Path, resume: bool, timeout: float, quiet: bool = False) -> list[dict]:
    """Run ``selected`` mutations; returns one result row per mutation (also merged into ``results``)."""
    from verify.collect import collect_tests

    tests = collect_tests((), results)
    done = load_results(results)["mutations"] if resume else {}
    todo = [m for m in selected if not (done.get(m.name, {}).get("spec") == m.spec)]
    with tempfile.TemporaryDirectory(prefix="lengthgen-mutate-") as tmp:
        copy = Path(tmp)
        _copy_tree(copy)
        runner = _Pytest(copy)
        try:
            rows = _run_in(runner, todo, tests, results, timeout, quiet)
        finally:
            runner.close()
    return rows


def _run_in(runner: _Pytest, todo: list[Mutation], tests: dict, results: Path, timeout: float,
            quiet: bool) -> list[dict]:
    """The baseline on the unmutated copy, then each mutation in turn (results merged as they come)."""
    copy = runner.copy
    rows: list[dict] = []
    base_nodes = sorted({str(copy / n) for m in todo for k in m.claims for n in required_nodes(k, tests)})
    if base_nodes:
        t0 = time.perf_counter()
        rc = runner.run(base_nodes, timeout * 4)
        print(f"baseline: {len(base_nodes)} checks, exit {rc}, {time.perf_counter() - t0:.1f} s", flush=True)
        if rc != 0:
            raise SystemExit("python -m verify.mutate: error: the unmutated checks do not pass "
                             "(run python -m verify.report --run); no mutation recorded")
    for i, m in enumerate(todo, 1):
        target = copy / m.path
        t0 = time.perf_counter()
        original = target.read_text() if target.exists() else None
        reader = Reader(copy)  # the unmutated copy: what the record judges
        judged = {k: judged_inputs(m, k, tests, copy, reader) for k in m.claims}
        per_claim: dict[str, str] = {}
        try:
            if original is None:
                raise MutationError(f"mutation {m.name}: no file {m.path}")
            target.write_text(m.apply(original))
            per_claim = _judge(runner, {k: required_nodes(k, tests) for k in m.claims}, timeout * len(m.claims))
        except MutationError as exc:
            print(f"  {exc}", flush=True)
            per_claim = dict.fromkeys(m.claims, "error")
        finally:
            if original is not None:
                target.write_text(original)
        seconds = round(time.perf_counter() - t0, 2)
        result = ("caught" if all(v == "caught" for v in per_claim.values()) else
                  "error" if "error" in per_claim.values() else "survived")
        row = {"claims": per_claim, "outcome": result, "spec": m.spec, "seconds": seconds, "at": time.time(),
               "inputs": {k: sorted(d) for k, d in judged.items()},
               "digests": {f: h for d in judged.values() for f, h in d.items()}}
        merge(results, "mutations", {m.name: row})
        rows.append({"name": m.name, **row})
        detail = ", ".join(f"{k} {v}" for k, v in per_claim.items())
        print(f"[{i}/{len(todo)}] {m.name:<38} {result:<8} {seconds:6.1f} s  {detail}", flush=True,
              file=sys.stderr if quiet else sys.stdout)
    return rows


@command
def main(argv: list[str] | None = None) -> int:
    ap = Parser(module="verify.mutate", description=__doc__.splitlines()[0])
    ap.add_argument("--claim", action="append", default=[], metavar="KEY", help="only mutations of this claim")
    ap.add_argument("--name", action="append", default=[], help="only the mutation with this name")
    ap.add_argument("--list", action="store_true", help="list the declared mutations and exit")
    ap.add_argument("--resume", action="store_true", help="skip mutations already recorded with this definition")
    ap.add_argument("--timeout", type=finite_real(positive=True), default=300.0,
                    help="seconds allowed per mutation run (default 300)")
    ap.add_argument("--results", metavar="PATH", help="results file (default as for python -m verify.report)")
    ap.add_argument("--json", action="store_true", help="print the list (--list) or the run's rows as JSON")
    args = ap.parse_args(argv)
    if args.results is not None:
        with usage_errors(ap, ResultsError):  # before any mutation runs: a file that is not a results file
            check_target(args.results, what="--results")  # not a device, its folder writable
            if Path(args.results).exists():
                load_results(Path(args.results))
    try:
        muts = all_mutations()
    except Exception as exc:  # registry errors are user-facing configuration errors
        ap.error(str(exc))
    unknown = [n for n in args.name if n not in muts]
    if unknown:
        ap.error(f"unknown mutation(s) {', '.join(unknown)}")
    declared = {k for m in muts.values() for k in m.claims}
    unknown = [k for k in args.claim if k not in declared]
    if unknown:
        ap.error(f"argument --claim: no mutation is declared for {', '.join(unknown)}")
    selected = [m for m in muts.values() if (not args.name or m.name in args.name)
                and (not args.claim or set(m.claims) & set(args.claim))]
    if args.list:
        if args.json:
            print(json.dumps([{"name": m.name, "path": str(m.path), "claims": list(m.claims), "why": m.why}
                              for m in selected], indent=1))
            return 0
        for m in selected:
            print(f"{m.name:<40} {m.path}  [{', '.join(m.claims)}]\n    {m.why}")
        return 0
    t0 = time.perf_counter()
    rows = run(selected, results_path(args.results), args.resume, args.timeout, quiet=args.json)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    counts = {o: sum(r["outcome"] == o for r in rows) for o in ("caught", "survived", "error")}
    print(f"{len(rows)} mutations in {time.perf_counter() - t0:.0f} s: "
          + ", ".join(f"{n} {o}" for o, n in counts.items()))
    return 0


if __name__ == "__main__":
    from verify.mutate import main as _main  # the registry declares into the imported module, not __main__

    sys.exit(_main())

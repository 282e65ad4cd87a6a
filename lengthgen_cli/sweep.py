"""Sweeps: run specs through one executor interface, one JSON record per run, atomic and resumable.

One home for every tool that runs many independent jobs: the trained experiments (``bounds.experiments``) and
the certificate of a trained run folder (``bounds.certify --runs``), so a sweep is certified where it was trained.

A sweep is a list of :class:`RunSpec`: a stable ``key`` naming the run, the function that performs it
(``"package.module:function"``, called as ``function(**kwargs)`` and returning a JSON-able dict), its JSON-able
``kwargs`` and the resources it needs (``num_cpus``, ``num_gpus``).  :func:`run_specs` executes the specs that
have no record yet and writes each result to ``<out_dir>/<digest of key>.json`` the moment it arrives (written
to a temporary file, fsynced, then renamed: a SIGKILL leaves either the whole record or none).  Rerunning the
same sweep skips every run already recorded, so an interrupted sweep loses only the runs in flight and never
records one twice.  Records are the same whichever executor ran them::

    {"key": ..., "fn": ..., "kwargs": {...}, "executor": "local" | "ray" | "inline", "wall_seconds": ...,
     "record": <what the function returned>}

Executors (``executor=``):

* ``"local"`` (default): a pool of ``workers`` local processes (``concurrent.futures``, spawn start method);
  ``workers=1`` runs the specs in this process (no pool; what tests and debuggers want).
* ``"ray"``: Ray tasks (``pip install '.[ray]'``) with ``num_cpus`` / ``num_gpus`` per spec, on the cluster
  given by ``ray_address`` (``None``: a local Ray instance started for the sweep; ``"auto"``: a running cluster).

How another experiment plugs in: write a top-level function ``run_one(**kwargs) -> dict`` (it may import torch
and use :func:`bounds.experiments.training.loop.train_models`), build specs ``RunSpec(key, "my.module:run_one", kwargs)``
and call :func:`run_specs`; :func:`load_records` reads the results back.  A function that accepts a
``progress`` keyword gets a callable ``progress(step, max_steps)`` that feeds the sweep's progress display
(local and inline executors).  A tool that keeps its results in another form (``bounds.certify --runs``: one JSON
line per result) calls :func:`execute_specs`, which runs the specs and hands each result back as it arrives.

On the command line: :func:`add_executor_options` (``--executor``, ``--workers``, ``--ray-address``) and
:func:`check_executor` (before any work: Ray installed, ``--workers`` not given with Ray; one line, exit 2).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from lengthgen_cli.output import write_atomic
from lengthgen_cli.parser import UsageError
from lengthgen_cli.types import bounded_int

EXECUTORS = ("local", "ray")


class SweepError(ValueError):
    """A sweep cannot run as asked (conflicting specs, unknown executor, missing Ray, unwritable folder)."""


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: ``fn(**kwargs)`` -> JSON-able dict, identified by ``key``."""

    key: str
    fn: str
    kwargs: dict = field(default_factory=dict)
    num_cpus: float = 1
    num_gpus: float = 0

    def digest(self) -> str:
        return hashlib.sha256(self.key.encode()).hexdigest()[:20]

    def as_dict(self) -> dict:
        return asdict(self)


def record_path(out_dir: str, spec: RunSpec) -> str:
    return os.path.join(out_dir, spec.digest() + ".json")


def read_record(path: str, key: str | None = None) -> dict | None:
    """The record at ``path`` if it is a whole record (a JSON object with the fields :func:`run_specs` writes, a
    dict ``record``, and the ``key`` given), else None: a file cut short, edited or of another run never counts as
    a finished run (it is run again, and left out of summaries)."""
    try:
        with open(path, encoding="utf-8") as fh:
            full = json.load(fh)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not (isinstance(full, dict) and isinstance(full.get("key"), str) and isinstance(full.get("record"), dict)
            and isinstance(full.get("kwargs"), dict)):
        return None
    return full if key is None or full["key"] == key else None


def recorded(out_dir: str, spec: RunSpec) -> bool:
    """Whether ``spec`` has a whole record in ``out_dir`` (:func:`read_record`)."""
    return read_record(record_path(out_dir, spec), spec.key) is not None


def load_records(out_dir: str, specs: Iterable[RunSpec] | None = None) -> list[dict]:
    """The whole records in ``out_dir`` (all of them, or those of ``specs``), sorted by key; files that are not
    whole records (:func:`read_record`) are left out."""
    if not os.path.isdir(out_dir):
        return []
    if specs is not None:
        found = [read_record(record_path(out_dir, s), s.key) for s in specs]
    else:
        found = [read_record(os.path.join(out_dir, f)) for f in os.listdir(out_dir)
                 if f.endswith(".json") and not f.startswith(".tmp-")]
    return sorted((r for r in found if r is not None), key=lambda r: r["key"])


def _dedupe(specs: Iterable[RunSpec]) -> list[RunSpec]:
    seen: dict[str, RunSpec] = {}
    for s in specs:
        if s.key in seen and seen[s.key] != s:
            raise SweepError(f"two different runs share the key {s.key!r}")
        seen.setdefault(s.key, s)
    return list(seen.values())


def resolve(fn: str) -> Callable:
    mod, _, name = fn.partition(":")
    try:
        return getattr(importlib.import_module(mod), name)
    except (ImportError, AttributeError) as e:
        raise SweepError(f"cannot find run function {fn!r}: {e}") from None


def execute(spec_dict: dict, progress=None) -> tuple[dict, float]:
    """Run one spec (in whichever process the executor chose); returns (record, wall seconds)."""
    fn = resolve(spec_dict["fn"])
    kwargs = dict(spec_dict["kwargs"])
    if progress is not None and "progress" in inspect.signature(fn).parameters:
        kwargs["progress"] = progress
    t0 = time.perf_counter()
    rec = fn(**kwargs)
    return rec, time.perf_counter() - t0


class _QueueProgress:
    """Picklable progress callable for pool workers: puts (key, step, max_steps) on a manager queue."""

    def __init__(self, queue, key):
        self.queue, self.key = queue, key

    def __call__(self, step, max_steps):
        self.queue.put((self.key, step, max_steps))


def _execute_with_queue(spec_dict: dict, queue) -> tuple[dict, float]:
    return execute(spec_dict, _QueueProgress(queue, spec_dict["key"]) if queue is not None else None)


def run_specs(specs: Iterable[RunSpec], out_dir: str, executor: str = "local", workers: int | None = None,
              ray_address: str | None = None, on_record: Callable[[dict], None] | None = None,
              on_steps: Callable[[str, int, int], None] | None = None) -> dict:
    """Run every spec without a record in ``out_dir``; returns ``{"ran": n, "skipped": m, "records": [...]}``.

    ``on_record(record)`` is called in this process after each record is written; ``on_steps(key, step,
    max_steps)`` with step progress reported by run functions that take a ``progress`` keyword."""
    specs = _dedupe(specs)
    _known(executor)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise SweepError(f"cannot create the run folder {out_dir!r}: {e.strerror or e}") from None
    if not os.access(out_dir, os.W_OK):
        raise SweepError(f"cannot write to the run folder {out_dir!r}")
    todo = [s for s in specs if not recorded(out_dir, s)]
    name = executor if not (executor == "local" and (workers or 1) == 1) else "inline"

    def save(spec: RunSpec, rec: dict, seconds: float) -> None:
        full = {"key": spec.key, "fn": spec.fn, "kwargs": spec.kwargs, "executor": name,
                "wall_seconds": round(seconds, 3), "record": rec}
        write_atomic(record_path(out_dir, spec), full, within=out_dir)
        if on_record:
            on_record(full)

    execute_specs(todo, save, executor, workers, ray_address, on_steps)
    return {"ran": len(todo), "skipped": len(specs) - len(todo), "records": load_records(out_dir, specs)}


def _known(executor: str) -> None:
    if executor not in EXECUTORS:
        raise SweepError(f"unknown executor {executor!r}; use one of {EXECUTORS}")


def execute_specs(todo: Iterable[RunSpec], on_result: Callable[[RunSpec, dict, float], None], executor: str = "local",
                  workers: int | None = None, ray_address: str | None = None,
                  on_steps: Callable[[str, int, int], None] | None = None) -> None:
    """Run every spec of ``todo`` on ``executor`` (``"local"`` with ``workers`` processes, in this process when
    ``workers`` is 1, or ``"ray"``) and call ``on_result(spec, result, wall_seconds)`` in this process as each
    result arrives, in the order they finish.  Nothing is stored here: :func:`run_specs` stores one record file per
    spec; a caller with another store (a JSON-lines file) writes each result in ``on_result``, so a kill loses only
    the specs in flight."""
    todo = list(todo)
    _known(executor)
    if not todo:
        return
    if executor == "local" and (workers or 1) == 1:
        for s in todo:
            prog = (lambda step, m, k=s.key: on_steps(k, step, m)) if on_steps else None
            on_result(s, *execute(s.as_dict(), prog))
    elif executor == "local":
        _run_pool(todo, workers, on_result, on_steps)
    else:
        _run_ray(todo, on_result, ray_address)


def _run_pool(todo: list[RunSpec], workers: int, save, on_steps) -> None:
    """The local executor: ``workers`` spawned processes that end with the command (a SIGKILL of this process
    included; Ctrl-C kills them at once: :func:`lengthgen_cli.process.worker_pool`)."""
    import queue as queue_mod
    from concurrent.futures import FIRST_COMPLETED, wait

    from lengthgen_cli.process import start_manager, worker_pool

    with start_manager() as manager:
        q = manager.Queue() if on_steps else None
        with worker_pool(workers) as pool:
            futures = {pool.submit(_execute_with_queue, s.as_dict(), q): s for s in todo}
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                while q is not None:
                    try:
                        on_steps(*q.get_nowait())
                    except queue_mod.Empty:
                        break
                for f in finished:
                    save(futures[f], *f.result())


def _run_ray(todo: list[RunSpec], save, address: str | None) -> None:
    try:
        import ray
    except ImportError:
        raise SweepError("the ray executor needs Ray: pip install 'lengthgen[ray]' (or pip install ray)") from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        remote = ray.remote(execute)
        refs = {remote.options(num_cpus=s.num_cpus, num_gpus=s.num_gpus).remote(s.as_dict()): s for s in todo}
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for r in ready:
                save(refs[r], *ray.get(r))
    finally:
        if started:
            ray.shutdown()


# ------------------------------------------------------------------------------------------- command line
def add_executor_options(ap, max_workers: int, ray_address: bool = True,
                         workers_help: str = "local worker processes (default 1: in this process)") -> None:
    """``--executor local|ray``, ``--workers K`` (at most ``max_workers``, named ``MAX_WORKERS``) and, with
    ``ray_address``, ``--ray-address ADDR`` (the Ray cluster; default: a local instance started for the sweep)."""
    ap.add_argument("--executor", choices=EXECUTORS, default="local",
                    help="local processes (default) or Ray tasks (pip install '.[ray]')")
    ap.add_argument("--workers", type=bounded_int(1, max_workers, f"MAX_WORKERS = {max_workers}"), default=1,
                    help=workers_help)
    if ray_address:
        ap.add_argument("--ray-address", default=None,
                        help="Ray cluster address of --executor ray ('auto': a running cluster; default: start a "
                             "local instance)")


def check_executor(executor: str, workers: int) -> None:
    """``--executor ray`` needs Ray installed; ``--workers`` counts local processes, so it is refused with Ray (one
    line each, before any work)."""
    import importlib.util

    if executor == "ray":
        if importlib.util.find_spec("ray") is None:
            raise UsageError("--executor ray needs Ray: pip install 'lengthgen[ray]' (or pip install ray)")
        if workers != 1:
            raise UsageError("--workers counts local processes; Ray places the runs itself (drop --workers)")

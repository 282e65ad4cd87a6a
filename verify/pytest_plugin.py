"""The lengthgen pytest plugin: claim markers, the slow-by-default deselection, ``--claim``, results recording.

Loaded through the ``pytest11`` entry point ``verify.pytest_plugin`` of the installed package (and by the
project's own ``addopts = -p verify.pytest_plugin``, which finds it already registered under the same name,
so it is never loaded twice).  It makes ``pytest --pyargs verify`` from any directory behave like
``pytest verify/`` in the checkout:

* registers the markers ``claims(*keys)`` (the paper statements a test checks, see :func:`verify.claims.checks`)
  and ``slow``;
* deselects tests marked ``slow`` unless ``-m`` is given or ``--slow`` is passed;
* rejects, at collection, a ``claims`` marker naming an unregistered claim;
* ``--claim KEY`` (repeatable) keeps exactly the tests linked to those claims; with no path arguments and no
  configured ``testpaths``, claims of the papers shipped with lengthgen are looked for in the installed
  ``verify`` package (and claims of your own papers in the working directory, as usual);
* records the outcome of every claim-linked test that ran into the results file (:mod:`verify.results`;
  ``--claim-results PATH`` or ``$LENGTHGEN_RESULTS`` choose it, ``--no-claim-results`` turns recording off),
  from which :mod:`verify.status` computes each claim's status.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

_MARKERS = ("claims(*keys): the paper statements a test checks (see verify.claims)",
            "slow: long searches and benchmarks; deselected unless -m is given or --slow is passed")
_LINKED = pytest.StashKey[dict]()


def pytest_addoption(parser):
    group = parser.getgroup("lengthgen", "lengthgen claim checks")
    group.addoption("--claim", action="append", default=[], metavar="KEY",
                    help="run only the checks linked to claim KEY (repeatable), e.g. izzo2025:thm4.1")
    group.addoption("--slow", action="store_true", help="also run tests marked slow (deselected by default)")
    group.addoption("--claim-results", metavar="PATH",
                    help="results file recording claim-check outcomes (default: $LENGTHGEN_RESULTS or the "
                         "per-installation file under ~/.cache/lengthgen)")
    group.addoption("--no-claim-results", action="store_true", help="do not record claim-check outcomes")


def pytest_configure(config):
    for line in _MARKERS:
        config.addinivalue_line("markers", line)
    config.stash[_LINKED] = {}
    if not config.getoption("no_claim_results"):
        config.pluginmanager.register(_Recorder(config), "lengthgen-claim-recorder")
    wanted = config.getoption("claim")
    if wanted and config.args_source == pytest.Config.ArgsSource.INCOVATION_DIR:
        # no paths given: the checks of the papers shipped with lengthgen live in the installed package
        import verify
        from verify.claims import BUILTIN_PAPERS

        papers = {k.split(":", 1)[0] for k in wanted}
        if papers <= set(BUILTIN_PAPERS):
            config.args[:] = [str(Path(verify.__file__).resolve().parent)]
        elif papers & set(BUILTIN_PAPERS):
            config.args.append(str(Path(verify.__file__).resolve().parent))


def _claim_keys(item) -> list[str]:
    return [k for mark in item.iter_markers("claims") for k in mark.args]


def pytest_collection_modifyitems(config, items):
    from verify.claims import load_all
    from verify.results import node_key

    known = load_all()
    wanted = config.getoption("claim")
    unknown_wanted = [k for k in wanted if k not in known]
    if unknown_wanted:
        raise pytest.UsageError(f"--claim: unknown claim key(s) {unknown_wanted}; see python -m verify.report")
    keep, drop = [], []
    for item in items:
        keys = _claim_keys(item)
        unknown = [k for k in keys if k not in known]
        if unknown:
            raise pytest.UsageError(f"{item.nodeid}: unknown claim key(s) {unknown}; register them in "
                                    "verify/registry/ (or your own claim module, docs/own_claims.md)")
        slow_out = (item.get_closest_marker("slow") is not None and not config.option.markexpr
                    and not config.getoption("slow"))
        if slow_out or (wanted and not set(keys) & set(wanted)):
            drop.append(item)
        else:
            keep.append(item)
            if keys:
                name = item.nodeid.split("::", 1)[1] if "::" in item.nodeid else item.name
                config.stash[_LINKED][item.nodeid] = (node_key(item.path, name), keys)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


class _Recorder:
    """Records the outcome of each claim-linked test of one session and merges them into the results file."""

    def __init__(self, config):
        self.config = config
        self.outcomes: dict[str, str] = {}

    def pytest_runtest_logreport(self, report):
        if report.nodeid not in self.config.stash[_LINKED]:
            return
        if report.failed:
            self.outcomes[report.nodeid] = "failed"
        elif report.skipped and self.outcomes.get(report.nodeid) != "failed":
            self.outcomes[report.nodeid] = "skipped"  # skip or xfail: the check did not run to completion
        elif report.when == "call" and report.passed:
            self.outcomes[report.nodeid] = "passed"

    def pytest_sessionfinish(self, session):
        if self.config.getoption("collectonly") or not self.outcomes:
            return
        from verify.results import merge, results_path

        now = time.time()
        linked = self.config.stash[_LINKED]
        entries = {linked[n][0]: {"claims": linked[n][1], "outcome": o, "at": now}
                   for n, o in self.outcomes.items()}
        merge(results_path(self.config.getoption("claim_results")), "tests", entries)

"""Pytest plugin of ``python -m verify.mutate``: stop a mutation's run as soon as every claim has a failed check.

A claim is ``caught`` by a mutation as soon as one of its own linked checks fails, so once every claim of the
mutation has a failed check the remaining checks cannot change the verdict: they are skipped, and the session stops (exit status 1).
A check still needed by a claim not yet caught always runs, so a ``survived`` verdict still rests on every required
check.  The runner passes the claims' checks (claim key -> node keys of :func:`verify.results.node_key`) as JSON in
the environment variable :data:`ENV`; without it the plugin does nothing.
"""

from __future__ import annotations

import json
import os

import pytest

ENV = "LENGTHGEN_MUTATION_CLAIMS"


class _EarlyStop:
    def __init__(self, nodes_of: dict[str, list[str]]):
        self.nodes_of = {k: set(v) for k, v in nodes_of.items()}
        self.caught: set[str] = set()
        self.session = None

    def _key(self, item) -> str:
        from verify.results import node_key

        name = item.nodeid.split("::", 1)[1] if "::" in item.nodeid else item.name
        return node_key(item.path, name)

    def pytest_sessionstart(self, session):
        self.session = session

    def pytest_runtest_setup(self, item):
        key = self._key(item)
        needed_by = {c for c, ns in self.nodes_of.items() if key in ns}
        if needed_by and needed_by <= self.caught:
            pytest.skip("every claim this check serves is already caught by the mutation")

    def pytest_runtest_logreport(self, report):
        if not report.failed:
            return
        from verify.results import node_key

        path, _, name = report.nodeid.partition("::")
        key = node_key(os.path.join(str(self.session.config.rootpath), path), name)
        self.caught |= {c for c, ns in self.nodes_of.items() if key in ns}
        if self.caught >= set(self.nodes_of):
            self.session.shouldfail = "every claim of the mutation is caught"  # exit status 1 (tests failed)


def pytest_configure(config):
    spec = os.environ.get(ENV)
    if spec:
        config.pluginmanager.register(_EarlyStop(json.loads(spec)), "lengthgen-mutation-early-stop")

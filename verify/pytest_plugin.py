"""Pytest plugin (loaded from pyproject's addopts): every ``claims`` marker must name registered claims."""

import pytest


def pytest_collection_modifyitems(config, items):
    from verify.claims import load_all

    known = load_all()
    for item in items:
        for mark in item.iter_markers("claims"):
            unknown = [k for k in mark.args if k not in known]
            if unknown:
                raise pytest.UsageError(f"{item.nodeid}: unknown claim key(s) {unknown}; register them in verify/registry/")

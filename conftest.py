"""Project-wide pytest configuration: claim-marker validation and Hypothesis profiles."""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "default")


def pytest_collection_modifyitems(config, items):
    from verify.claims import load_all

    known = load_all()
    for item in items:
        for mark in item.iter_markers("claims"):
            unknown = [k for k in mark.args if k not in known]
            if unknown:
                raise pytest.UsageError(f"{item.nodeid}: unknown claim key(s) {unknown}; register them in verify/registry/")

"""The Hypothesis settings of the check suite: no deadline (exact arithmetic has long tails), derandomized on CI."""

import os

from hypothesis import HealthCheck, settings


def load() -> None:
    """Register the ``default`` and ``ci`` profiles and load ``ci`` when ``$CI`` is set."""
    settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("ci" if os.environ.get("CI") else "default")

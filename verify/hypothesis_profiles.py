"""The Hypothesis settings of the check suite: no deadline (exact arithmetic has long tails), derandomized on CI, and
no shrinking under ``python -m verify.mutate`` (a mutation is caught by the first failure; shrinking it only costs
time)."""

import os

from hypothesis import HealthCheck, Phase, settings


def load() -> None:
    """Register the ``default``, ``ci`` and ``mutation`` profiles; load ``$LENGTHGEN_HYPOTHESIS_PROFILE`` if set,
    else ``ci`` when ``$CI`` is set, else ``default``."""
    settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("mutation", deadline=None, database=None,
                              phases=(Phase.explicit, Phase.generate), suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("LENGTHGEN_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default"))

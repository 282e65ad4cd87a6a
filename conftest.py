"""Project-wide pytest configuration: the Hypothesis profiles (claim markers come from verify.pytest_plugin)."""

from verify.hypothesis_profiles import load

load()

"""Configuration of the installed check suite (``pytest --pyargs verify``): the Hypothesis profiles."""

from verify.hypothesis_profiles import load

load()

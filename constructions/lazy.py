"""Package attributes loaded on first use (PEP 562), so that importing one submodule loads only what it needs."""

from __future__ import annotations

import importlib


def lazy_exports(package: str, homes: dict[str, tuple[str, ...]]):
    """``(__getattr__, __dir__, __all__)`` for a package whose public names live in submodules: ``homes`` maps a
    submodule (relative name) to the names it defines.  A name is imported, and cached in the package, on first
    access (``from package import name`` included)."""
    where = {name: module for module, names in homes.items() for name in names}
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name):
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__, sorted(where)

"""Izzo et al. sec. 5 tasks (ModPTask, SimpleTask): exact targets, App. B samplers, App. A.2 constructions.

Loaded on first use (:mod:`constructions.lazy`): the ModP estimate does not load the sine MLP's mpmath."""

from constructions.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "errors": ("TaskError",),
    "modp": ("ModPTask",),
    "simple": ("SimpleTask",),
    "sine_mlp": ("SineMLP",),
})

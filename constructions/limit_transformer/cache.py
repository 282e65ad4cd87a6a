"""Introspection: every intermediate of one evaluation (eqs. (1)-(4), (6)), from the float or exact path.

``run_with_cache(model, strings)`` returns ``(outputs, cache)``; the :class:`ActivationCache` holds, for
layers ``l = 1..L`` (list index ``l - 1``; ``residual`` has index ``0..L``):

* ``residual[l]``: the residual stream ``y^(l)`` (``residual[0] = E_{x_i} + p_{i+o}``);
* ``attention[l-1][h-1]``: head h's attention weights, query x key (0 above the diagonal);
* ``attention_residual[l-1]``: ``Y^(l)``, the stream after the heads and before the MLP;
* ``mlp_pre[l-1]`` / ``mlp_post[l-1]``: ``A Y + b`` and ``psi(A Y + b)`` (``None`` without an MLP);
* ``coordinates``: one name per residual coordinate (``metadata["coordinates"]`` of a compiled model,
  else ``x0, x1, ...``).

Float path (``exact=False``): float64 arrays with a leading batch axis, ``(B, n, d)``, ``(B, n, n)``,
``(B, n, k)``.  Exact path (``exact=True``, one string): object arrays of ``Fraction`` without the batch
axis.  Attention weights are stored densely, so the cache needs O(n^2) memory per head: it is meant for
inspecting short inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from constructions.limit_transformer.errors import InputError
from constructions.limit_transformer.evaluate import forward
from constructions.limit_transformer.exact import exact_forward
from constructions.limit_transformer.model import LimitTransformer


def coordinate_names(model: LimitTransformer) -> list[str]:
    """The residual coordinates' names: ``metadata["coordinates"]`` if it names all d, else ``x0..x{d-1}``."""
    names = model.metadata.get("coordinates")
    if isinstance(names, list | tuple) and len(names) == model.d:
        return [str(v) for v in names]
    return [f"x{k}" for k in range(model.d)]


@dataclass
class ActivationCache:
    """Every intermediate of one evaluation (see the module docstring for shapes)."""

    coordinates: list
    exact: bool
    residual: list = field(default_factory=list)
    attention: list = field(default_factory=list)
    attention_residual: list = field(default_factory=list)
    mlp_pre: list = field(default_factory=list)
    mlp_post: list = field(default_factory=list)

    def index(self, name: str) -> int:
        try:
            return self.coordinates.index(name)
        except ValueError:
            raise InputError(f"no residual coordinate named {name!r}; names: {self.coordinates}") from None

    def coordinate(self, name: str, layer: int = -1) -> np.ndarray:
        """The values of coordinate ``name`` in ``y^(layer)`` at every position (default: the last layer)."""
        return self.residual[layer][..., self.index(name)]

    def named(self, layer: int = -1, position: int = -1, batch: int = 0) -> dict:
        """``{name: value}`` of ``y^(layer)`` at one (0-based, ``$`` = 0) position."""
        stream = self.residual[layer] if self.exact else self.residual[layer][batch]
        return dict(zip(self.coordinates, stream[position], strict=True))


def run_with_cache(model: LimitTransformer, strings, *, exact: bool = False, offset: int = 0):
    """``(outputs, cache)``: outputs at every position (as ``forward`` / ``exact_forward`` with
    ``positions="all"``) and an :class:`ActivationCache` of every intermediate."""
    cache = ActivationCache(coordinate_names(model), exact)
    if exact:
        out = exact_forward(model, strings, offset=offset, cache=cache)
    else:
        out = forward(model, strings, offset=offset, cache=cache)
    return out, cache

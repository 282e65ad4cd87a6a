"""The causal sequence-model interface shared by the realizing networks (Ahuja & Mansouri, sec. 2)."""

from __future__ import annotations

from collections.abc import Sequence

from constructions.realizing.exact import to_vector


# ----------------------------------------------------------------------------------- architectures
class SequenceModel:
    """A sequence-to-sequence model: ``outputs(xs)[t-1]`` is the label for the prefix x_1..x_t.

    Subclasses define ``initial()`` and ``advance(state, x) -> (state, label)`` (a causal model reads its
    input one token at a time); :meth:`outputs` runs them.
    """

    def initial(self):  # pragma: no cover - interface
        raise NotImplementedError

    def advance(self, state, x):  # pragma: no cover - interface
        raise NotImplementedError

    def outputs(self, xs: Sequence) -> list:
        state, out = self.initial(), []
        for x in xs:
            state, y = self.advance(state, to_vector(x))
            out.append(y)
        return out


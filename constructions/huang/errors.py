"""Exceptions of the Huang et al. finite-transformer package (:mod:`constructions.huang`)."""

from constructions.limit_transformer.errors import LimitTransformerError


class HuangError(LimitTransformerError):
    """Base class of the errors raised by :mod:`constructions.huang`."""


class NotInThetaError(HuangError):
    """A transformer violates Definition 4/46 (a product function with positions is not translation-invariant)."""


class ContextError(HuangError):
    """An input does not fit the context window: |x| + offset > N(T)."""


class NotCompilableError(HuangError):
    """Lemma 47 needs a Periodic and Local Limit Transformer under the ``izzo`` precision model."""


class NotTranslatableError(HuangError):
    """The Lemma 52 translator cannot handle this transformer (outside the subclass it implements)."""


class InferenceError(HuangError):
    """Bad arguments to the bounded Inference Procedure."""

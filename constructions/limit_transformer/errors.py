"""Specific exceptions of the Limit Transformer core (each message says what to fix), and how a message names the
field of a model file."""


class LimitTransformerError(ValueError):
    """Base class of every error raised by :mod:`constructions.limit_transformer`."""


class ShapeError(LimitTransformerError):
    """A parameter has the wrong shape for the declared width, alphabet or hidden size."""


class NotPeriodicError(LimitTransformerError):
    """The positional encodings are not periodic (or not with the declared period)."""


class NotLocalError(LimitTransformerError):
    """A positional attention term phi is not tau-local (or not with the declared locality)."""


class NotTranslationInvariantError(LimitTransformerError):
    """A positional attention term phi(j, i) depends on more than the offset i - j."""


class NotExactError(LimitTransformerError):
    """The exact evaluator met an attention weight that is irrational (outside the hardmax regime)."""


class NotHardmaxError(LimitTransformerError):
    """The counting evaluator was asked for a length at which attention is not a hardmax."""


class ModelFormatError(LimitTransformerError):
    """A model file is malformed, of an unknown schema version, or inconsistent with itself."""


class InputError(LimitTransformerError):
    """An input string uses a symbol outside the alphabet, or a batch has ragged lengths."""


class NotFloat64Error(ModelFormatError):
    """A weight is not a float64 value (e.g. 1/3), so the binary model format cannot hold it exactly."""


def field_path(parts) -> str:
    """``["layers", 0, "heads", 1, "query"]`` -> ``layers[0].heads[1].query``."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"

"""Limit Transformers: exact type, finite-precision semantics, evaluators, validation and JSON files."""

from constructions.limit_transformer.errors import (  # noqa: F401
    InputError,
    LimitTransformerError,
    ModelFormatError,
    NotExactError,
    NotHardmaxError,
    NotLocalError,
    NotPeriodicError,
    NotTranslationInvariantError,
    PrecisionOverflowError,
    ShapeError,
)
from constructions.limit_transformer.model import (  # noqa: F401
    BOS,
    MLP,
    ArbitraryPhi,
    ArbitraryPositions,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
)

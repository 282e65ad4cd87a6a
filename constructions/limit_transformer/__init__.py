"""Limit Transformers: exact type, finite-precision semantics, evaluators, validation and JSON files."""

from constructions.limit_transformer.cache import ActivationCache, coordinate_names, run_with_cache  # noqa: F401, E402
from constructions.limit_transformer.counting import counting_forward  # noqa: F401, E402
from constructions.limit_transformer.errors import (  # noqa: F401
    InputError,
    LimitTransformerError,
    ModelFormatError,
    NotExactError,
    NotHardmaxError,
    NotLocalError,
    NotPeriodicError,
    NotTranslationInvariantError,
    ShapeError,
)
from constructions.limit_transformer.evaluate import forward, stream_forward  # noqa: F401, E402
from constructions.limit_transformer.exact import exact_forward  # noqa: F401, E402
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
from constructions.limit_transformer.serialize import load_model, model_from_dict, model_to_dict, save_model  # noqa: F401, E402

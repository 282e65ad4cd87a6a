"""Limit Transformers: exact type, finite-precision semantics, evaluators, validation, JSON and .npz files.

The names below are loaded on first use (:mod:`constructions.lazy`): a bound that needs only ``hardmax`` does not
load the evaluators, the exact arithmetic or the JSON schema machinery.
"""

from constructions.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "cache": ("ActivationCache", "coordinate_names", "run_with_cache"),
    "counting": ("counting_forward",),
    "errors": ("InputError", "LimitTransformerError", "ModelFormatError", "NotExactError", "NotFloat64Error",
               "NotHardmaxError", "NotLocalError", "NotPeriodicError", "NotTranslationInvariantError", "ShapeError"),
    "evaluate": ("forward", "stream_forward"),
    "exact": ("exact_forward",),
    "model": ("BOS", "MLP", "ArbitraryPhi", "ArbitraryPositions", "Head", "Layer", "LimitTransformer", "LocalPhi",
              "PeriodicPositions"),
    "npz": ("read_npz", "write_npz"),
    "serialize": ("load_model", "model_from_dict", "model_to_dict", "save_model"),
})

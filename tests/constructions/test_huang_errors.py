"""Unit tests: constructions.huang refuses bad input with its specific exception types."""

import numpy as np
import pytest

from constructions.crasp.compiler import compile_program
from constructions.crasp.programs import BENCHMARKS
from constructions.huang.errors import ContextError, InferenceError, NotCompilableError, NotInThetaError
from constructions.huang.finite import finite_transformer, fractional_bits
from constructions.huang.inference import bounded_class, inference, targets
from constructions.huang.lemma47 import compile_theta
from constructions.huang.lemma52 import period_of
from constructions.limit_transformer import ArbitraryPhi, Head, Layer


def test_compile_theta_rejects_bad_n_and_non_translation_invariant_phi():
    T = compile_program(BENCHMARKS["majority"].program())
    with pytest.raises(NotCompilableError):
        compile_theta(T, 0)
    head = Head([[0, 0]], [[0, 0]], [[0, 0], [1, 0]], ArbitraryPhi(lambda j, i: j))
    from constructions.limit_transformer import LimitTransformer
    bad = LimitTransformer(("a", "b"), [[0, 0], [1, 0], [0, 1]], (Layer((head,)),), [[0, 1], [0, 1]], precision_bits=1)
    with pytest.raises(NotCompilableError, match="translation-invariant"):
        compile_theta(bad, 4)


def test_finite_transformer_errors():
    parts = {"alphabet": ("a",), "embedding": [[0], [1]], "layers": (), "unembedding": [[1]], "precision_bits": 1}
    T = finite_transformer(parts, [[0], [0]])
    with pytest.raises(ContextError):
        T.forward("aa")
    with pytest.raises(NotInThetaError):
        finite_transformer(parts, np.zeros((0, 1), dtype=object))
    phi_head = Head([[0]], [[0]], [[1]], ArbitraryPhi(lambda j, i: 0))
    with pytest.raises(NotInThetaError, match="phi"):
        finite_transformer({**parts, "layers": (Layer((phi_head,)),)}, [[0]])
    with pytest.raises(NotInThetaError):
        fractional_bits(__import__("fractions").Fraction(1, 3))


def test_inference_errors_and_period():
    with pytest.raises(InferenceError):
        bounded_class(-1)
    with pytest.raises(InferenceError):
        inference(targets()[0], [1], bounded_class(1))
    assert period_of([1, 2, 1, 2, 1]) == 2 and period_of([1, 2, 3]) == 3 and period_of([]) == 1

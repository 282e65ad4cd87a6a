"""``stream_forward`` on every compiled C-RASP benchmark program (Huang et al. Theorem 9's compiler) against
``forward``, the exact evaluator and the C-RASP interpreter, on random words and on words near the language.

The streaming path evaluates a block at a time, touching only the coordinates each layer reads or writes; these
differential checks hold it to the other paths for every block size, including blocks shorter than a head's
window (the values carried across blocks) and a block of one position.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.crasp.compiler import compile_program
from constructions.crasp.interpreter import accepts
from constructions.crasp.programs import BENCHMARKS, get
from constructions.limit_transformer import exact_forward, forward, stream_forward
from constructions.strategies import member_like, words

_COMPILED = {}


def _compiled(name):
    if name not in _COMPILED:
        prog = get(name).program()
        _COMPILED[name] = (prog, compile_program(prog))
    return _COMPILED[name]


@st.composite
def _cases(draw):
    name = draw(st.sampled_from(sorted(BENCHMARKS)))
    prog, model = _compiled(name)
    word = draw(st.one_of(words("".join(model.alphabet), min_size=0, max_size=40),
                          member_like(name, max_len=40).filter(lambda w: set(w) <= set(model.alphabet))))
    return name, prog, model, word, draw(st.integers(1, 9)), draw(st.integers(0, 3))


@settings(max_examples=60, deadline=None)
@given(_cases())
def test_stream_matches_forward_exact_and_the_interpreter(case):
    name, prog, model, word, block, offset = case
    streamed = stream_forward(model, word, positions="all", block=block, offset=offset)
    exact = np.asarray(exact_forward(model, word, offset=offset), dtype=object).astype(float)
    assert np.allclose(streamed, exact, rtol=1e-9, atol=1e-9), name
    assert np.allclose(streamed, forward(model, word, offset=offset)[0], rtol=1e-9, atol=1e-9), name
    last = stream_forward(model, word, block=block, offset=offset)
    assert np.array_equal(last, streamed[-1])
    if word and offset == 0:  # the interpreter reads a nonempty word from position 1
        assert bool(last[-1] > 0) == accepts(prog, [word])[0], (name, word)


def test_the_comparison_can_fail():
    """Negative control: a perturbed stream output (one coordinate of one position) is told apart."""
    prog, model = _compiled("copy_unique")
    word = "".join(np.random.default_rng(0).choice(list(model.alphabet), 30))
    streamed = stream_forward(model, word, positions="all", block=4)
    exact = np.asarray(exact_forward(model, word), dtype=object).astype(float)
    assert np.allclose(streamed, exact)
    streamed[17, 0] += 1e-6
    assert not np.allclose(streamed, exact, rtol=1e-9, atol=1e-9)

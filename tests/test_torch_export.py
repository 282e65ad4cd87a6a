"""to_torch: the torch module reproduces forward on random models and compiled C-RASP programs."""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from constructions.crasp.compiler import compile_program
from constructions.crasp.programs import get
from constructions.limit_transformer import forward
from constructions.strategies import boundary_free, limit_transformers, strings, words
from constructions.strategies import crasp_programs as programs

torch = pytest.importorskip("torch")
from constructions.limit_transformer.torch_export import to_torch  # noqa: E402


def _agree(model, batch, offset=0, positions="all"):
    ref = forward(model, batch, offset=offset, positions=positions)
    mod = to_torch(model, device="cpu")
    got = mod(mod.encode(batch), offset=offset, positions=positions).numpy()
    return np.allclose(ref, got, rtol=1e-9, atol=1e-9), ref, got


@settings(max_examples=20, deadline=None)
@given(limit_transformers(depth=(1, 3)), st.lists(strings(min_size=3, max_size=3), min_size=1,
       max_size=3), st.integers(0, 4), st.sampled_from(["all", "last"]))
def test_to_torch_matches_forward_on_random_models(model, batch, offset, positions):
    with boundary_free():  # both paths decide a boundary alike, but neither can certify it
        ok, ref, got = _agree(model, batch, offset, positions)
    assert ok, (ref, got)


@settings(max_examples=6, deadline=None)
@given(programs(max_defs=6), st.sampled_from(["izzo", "huang"]), st.data())
def test_to_torch_matches_forward_on_compiled_programs(prog, precision, data):
    model = compile_program(prog, precision=precision)
    n = data.draw(st.integers(1, 40))
    batch = data.draw(st.lists(words(prog.alphabet, n, n), min_size=1, max_size=4))
    with boundary_free():
        ok, ref, got = _agree(model, batch)
    assert ok
    assert np.array_equal(ref[:, -1, -1] > 0, got[:, -1, -1] > 0)


def test_to_torch_benchmark_programs_verdicts():
    rng = np.random.default_rng(0)
    for name in ("dyck1", "tomita4", "copy_unique"):
        model = compile_program(get(name).program())
        ids = np.concatenate([np.zeros((4, 1), int), rng.integers(1, len(model.alphabet) + 1, (4, 150))], 1)
        ok, ref, got = _agree(model, ids, positions="last")
        assert ok and np.array_equal(ref[:, -1] > 0, got[:, -1] > 0)


def test_constructions_import_without_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import constructions.limit_transformer, constructions.crasp.compiler\n"
            "try:\n    import constructions.limit_transformer.torch_export\nexcept ImportError:\n    print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"

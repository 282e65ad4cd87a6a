"""Legal inputs beyond the double range (the exact-rational file format holds any rational): ``bounds.estimate``
answers in the log domain or refuses in one line, its --json is strict JSON (no Infinity/NaN), and no decision is
taken on a double that cannot separate it -- a phi of 10^-400 is not read as 0 by the interval margin
(bounds/interval_margin.py ``_phi_zero``), and --mlp-error 1e-400 is not called "not positive".  Negative controls:
the float reading of phi (the earlier rule) claims gamma = +inf where the exact gamma is 10^-400, and the strict JSON
check rejects an Infinity."""

import copy
import dataclasses
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from bounds import interval_margin
from bounds.estimate import main
from bounds.float_enclosures import TINY, Ball
from bounds.interval_model import from_model
from bounds.margin import INF, ingredients, interval_ingredients
from constructions.limit_transformer.model import Layer, LocalPhi
from constructions.limit_transformer.serialize import save_model
from constructions.tasks.modp import ModPTask

BIG, SMALL = "1" + "0" * 400, "1/1" + "0" * 400


def _set(path):
    def edit(d, value):
        obj = d
        for k in path[:-1]:
            obj = obj[k]
        obj[path[-1]] = value
    return edit


HEAD = ("layers", 0, "heads", 0)
EDITS = {  # field -> where it sits in the ModP(3) file
    "logit key": HEAD + ("key", 0, 5), "head value": HEAD + ("value", 3, 1), "phi": HEAD + ("phi",),
    "mlp B": ("layers", 0, "mlp", "B", 0, 0), "mlp A": ("layers", 0, "mlp", "A", 0, 0),
    "embedding": ("embedding", 1, 0), "unembedding": ("unembedding", 0, 0), "positions": ("positions", "table", 0, 0),
    "precision_bits": ("precision_bits",),
}


def _strict_json(text: str) -> dict:
    def refuse(c):
        raise ValueError(f"not JSON: {c}")
    return json.loads(text, parse_constant=refuse)


def _files(tmp_path):
    src = tmp_path / "base.json"
    save_model(ModPTask(3, 0).limit_transformer(), src)
    base = json.loads(src.read_text())
    out = {}
    for name, where in EDITS.items():
        for tag, value in (("big", BIG if name != "precision_bits" else 10**400), ("tiny", SMALL)):
            if name == "precision_bits" and tag == "tiny":
                continue
            d = copy.deepcopy(base)
            _set(where)(d, {"tau": 0, "values": [value]} if name == "phi" else value)
            p = tmp_path / f"{name.replace(' ', '_')}-{tag}.json"
            p.write_text(json.dumps(d))
            out[p.name] = p
    return out


def _run(capsys, *argv):
    rc = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_every_numeric_field_beyond_the_double_range(tmp_path, capsys):
    """Each field at 10^400 and 10^-400 (precision_bits 10^400), in every mode: exit 0 with strict JSON, or exit 2
    with one line naming the problem; never a traceback."""
    for name, path in _files(tmp_path).items():
        for mode in ("exact", "interval", "auto"):
            rc, out, err = _run(capsys, "--model", path, "--mode", mode, "--json")
            assert rc in (0, 2), (name, mode, err[-300:])
            if rc == 0:
                _strict_json(out)
            else:
                assert err.count("\n") == 1 and err.startswith("bounds.estimate: error: "), (name, mode, err)
    with pytest.raises(ValueError, match="Infinity"):  # control: the strict check rejects a float infinity
        _strict_json(json.dumps({"x": math.inf}))


@pytest.mark.parametrize("argv", [("--eps", "1e309"), ("--eps", "1e-400"), ("--delta", BIG), ("--eps", SMALL),
                                  ("--eps", "1e309", "--proof-count"), ("--eps", "1e-400", "--as-published")])
def test_options_beyond_the_double_range(capsys, argv):
    rc, out, err = _run(capsys, "--task", "modp", "--period", "3", *argv, "--json")
    assert rc == 0, err
    _strict_json(out)
    rc, out, err = _run(capsys, "--task", "modp", "--period", "3", *argv)
    assert rc == 0 and "N = " in out, err


def test_a_tiny_positive_option_is_not_read_as_zero(capsys):
    rc, _, err = _run(capsys, "--task", "simple", "--mlp-error", "1e-400")
    assert rc == 2 and "below the smallest positive double" in err and err.count("\n") == 1
    rc, _, err = _run(capsys, "--task", "simple", "--mlp-error", "0")  # control: zero is still "not positive"
    assert rc == 2 and "must be positive" in err


def _tie_but_window(phi):
    """ModP(3) with a zero query: every content logit ties, and only the window's phi separates logits."""
    base = ModPTask(3, 0).limit_transformer()
    layer = base.layers[0]
    h = layer.heads[0]
    head = dataclasses.replace(h, query=np.zeros_like(h.query), phi=LocalPhi((phi,)))
    return dataclasses.replace(base, layers=(Layer(heads=(head,) + layer.heads[1:], mlp=layer.mlp),))


@pytest.mark.parametrize("phi", [Fraction(1, 10**400), Fraction(-3, 2**1100), Fraction(1, 10**320)])
def test_interval_gamma_keeps_a_phi_below_the_double_range(phi, monkeypatch, tmp_path):
    """The exact gamma is |phi| (below every double); the interval gamma (in memory and read from the file) is a
    lower bound of it, never +inf.  Control: deciding "phi = 0" on the double (the earlier rule) drops the window
    and claims gamma = +inf, which the same check rejects."""
    m = _tie_but_window(phi)
    exact = ingredients(m, mode="exact").gamma
    assert exact == abs(phi)
    path = tmp_path / "m.json"
    save_model(m, path)
    from bounds.interval_model import load_interval_model

    read = from_model(m)  # the phi as a double reader gives it: midpoint 0.0, radius TINY, no exact value at hand
    h = read.heads[0]
    read = dataclasses.replace(read, heads=(dataclasses.replace(h, phi=Ball(np.zeros(1), np.full(1, TINY)),
                                                                phi_exact=None),) + read.heads[1:])
    for iv in (ingredients(m, mode="interval"), interval_ingredients(from_model(m)),
               interval_ingredients(load_interval_model(path)), interval_ingredients(read)):
        assert iv.gamma != INF and iv.gamma <= exact
    with_exact = interval_margin.interval_margin(read, exact_model=m)  # near-ties decided on the exact model
    assert with_exact.gamma_lower is not None and with_exact.gamma_lower <= exact
    monkeypatch.setattr(interval_margin, "_phi_zero", lambda head: head.phi.mid == 0)
    assert interval_margin.interval_margin(read, exact_model=m).gamma_lower is None  # +inf: the float decision

"""The exact binary model format (constructions/limit_transformer/npz.py) read by ``bounds.estimate``.

Differential: the same model as a JSON file and as an ``.npz`` archive, under the same file name in two folders,
gives byte-identical ``--json`` output in every mode (random float models, a near-tie that the interval reader
cannot decide so that the exact loader reads the archive, a compiled construction).  Refusals: a weight that is
not a float64 value cannot be written; a malformed or unsafe archive is one line and exit 2.  Every check has a
negative control (an archive of a different model gives a different output; a genuine archive is accepted).
"""

from __future__ import annotations

import json
import os
import zipfile
from fractions import Fraction
from functools import partial

import numpy as np
import pytest

from bounds import estimate as est
from bounds.interval_model import load_interval_model
from constructions.limit_transformer import load_model, save_model
from constructions.limit_transformer.errors import ModelFormatError, NotFloat64Error
from constructions.limit_transformer.npz import HEADER, is_npz, read_npz, write_npz
from constructions.limit_transformer.serialize import model_to_dict
from tests.bounds.test_float_models import normal_model


def _near_tie(seed):
    """A float model whose tokens t1 and t2 differ by one ulp in one coordinate: logits tied within rounding."""
    m = normal_model(seed=seed)
    data = model_to_dict(m)
    e = np.array([[float(Fraction(x)) for x in row] for row in data["embedding"]])
    e[2] = e[1]
    e[2, 0] = np.nextafter(e[1, 0], np.inf)
    data["embedding"] = e
    return data


def _pair(tmp_path, data):
    """The model dict written as JSON to a/model and as an archive to b/model (same name: same "source")."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write_npz(data, tmp_path / "b" / "model")
    json_data = {**data}
    json_data["embedding"] = [[str(Fraction(x)) for x in row] for row in np.asarray(data["embedding"],
                                                                                               dtype=object)]
    (tmp_path / "a" / "model").write_text(json.dumps(json_data))
    return tmp_path / "a", tmp_path / "b"


def _out(folder, argv, capsys, monkeypatch):
    monkeypatch.chdir(folder)
    rc = est.main(["--model", "model", "--json", *argv])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


def _normal(**kw):
    return model_to_dict(normal_model(**kw))


MODELS = [pytest.param(partial(_normal, seed=s), id=f"normal-{s}") for s in (0, 1, 2)] + \
    [pytest.param(partial(_normal, d=16, sigma=5, delta=3, width=4, seed=7, tau=0), id="tau0"),
     pytest.param(partial(_near_tie, 3), id="near-tie")]


@pytest.mark.parametrize("make", MODELS)
@pytest.mark.parametrize("mode", ["auto", "interval", "exact"])
def test_json_and_npz_print_identical_estimates(tmp_path, capsys, monkeypatch, make, mode):
    a, b = _pair(tmp_path, make())
    assert is_npz(b / "model") and not is_npz(a / "model")
    from_json = _out(a, ["--mode", mode], capsys, monkeypatch)
    assert _out(b, ["--mode", mode], capsys, monkeypatch) == from_json


def test_near_tie_is_decided_exactly_from_the_archive(tmp_path, capsys, monkeypatch):
    """Every float64 of an archive is exact (radius 0), so the interval reader decides the one-ulp near-tie: the
    same gamma, a tiny gap, as exact arithmetic on the archive (and on the JSON file)."""
    a, b = _pair(tmp_path, _near_tie(3))
    iv = json.loads(_out(b, ["--mode", "interval"], capsys, monkeypatch))
    ex = json.loads(_out(b, ["--mode", "exact"], capsys, monkeypatch))
    assert not iv["gamma_unresolved"] and iv["mode"] == "interval" and ex["mode"] == "exact"
    lower, exact = Fraction(iv["gamma"]), Fraction(ex["gamma"])  # the interval gamma is a certified lower bound
    assert 0 < lower <= exact < Fraction(1, 10**12) and exact - lower < exact / 10**6
    control = json.loads(_out(a, ["--mode", "interval"], capsys, monkeypatch))
    assert control["gamma"] == iv["gamma"]
    no_tie = _near_tie(3)
    no_tie["embedding"][2, 0] += 0.5  # negative control: without the near-tie gamma is not tiny
    write_npz(no_tie, tmp_path / "c")
    os.replace(tmp_path / "c", b / "model")
    assert Fraction(json.loads(_out(b, ["--mode", "exact"], capsys, monkeypatch))["gamma"]) > Fraction(1, 10**12)


def test_a_different_model_prints_differently(tmp_path, capsys, monkeypatch):
    """Negative control of the differential test: it can fail."""
    a, _ = _pair(tmp_path, model_to_dict(normal_model(seed=0)))
    write_npz(model_to_dict(normal_model(seed=1)), tmp_path / "c")
    os.replace(tmp_path / "c", tmp_path / "b" / "model")
    assert _out(tmp_path / "b", [], capsys, monkeypatch) != _out(a, [], capsys, monkeypatch)


def test_round_trip_is_exact(tmp_path):
    m = normal_model(seed=4)
    save_model(m, tmp_path / "m.npz")  # save_model writes the archive for a .npz name
    back = load_model(tmp_path / "m.npz")
    assert model_to_dict(back) == model_to_dict(m)
    iv = load_interval_model(tmp_path / "m.npz")
    assert not iv.embedding.rad.any() and np.array_equal(iv.embedding.mid, m.embedding.astype(float))


def test_compiled_construction_round_trips(tmp_path, capsys, monkeypatch):
    from constructions.tasks.modp import ModPTask

    m = ModPTask(3, 1).limit_transformer(precision_bits=4, logit_scale=1)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    save_model(m, tmp_path / "a" / "model")
    write_npz(model_to_dict(m), tmp_path / "b" / "model")
    assert model_to_dict(load_model(tmp_path / "b" / "model")) == model_to_dict(m)
    assert _out(tmp_path / "b", [], capsys, monkeypatch) == _out(tmp_path / "a", [], capsys, monkeypatch)


def test_a_weight_that_is_not_float64_is_refused(tmp_path, capsys, monkeypatch):
    data = model_to_dict(normal_model())
    data["layers"][0]["heads"][0]["value"][1][2] = "1/3"
    with pytest.raises(NotFloat64Error, match=r"layers\[0\]\.heads\[0\]\.value\[\d+\]: 1/3 is not a float64"):
        write_npz(data, tmp_path / "x.npz")
    data["layers"][0]["heads"][0]["value"][1][2] = "1/4"  # control: a dyadic value is written
    write_npz(data, tmp_path / "y.npz")
    data["embedding"][0][0] = "1e400"
    with pytest.raises(NotFloat64Error, match="too large"):
        write_npz(data, tmp_path / "z.npz")
    # the converter of the CLI: one line, exit 2, nothing written
    data["embedding"][0][0] = 0.1  # a JSON float means its decimal text: 1/10 is not a float64
    (tmp_path / "m.json").write_text(json.dumps(data))
    monkeypatch.chdir(tmp_path)
    assert est.main(["--model", "m.json", "--save-npz", "m.npz"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a float64" in err and not (tmp_path / "m.npz").exists()
    assert not list(tmp_path.glob(".*tmp"))


def test_save_npz_converter(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    save_model(normal_model(), tmp_path / "m.json")
    assert est.main(["--model", "m.json", "--save-npz", "m.npz"]) == 0
    assert "wrote m.npz" in capsys.readouterr().out
    assert model_to_dict(load_model("m.npz")) == model_to_dict(load_model("m.json"))
    for argv, msg in ((["--model", "m.json", "--save-npz", "m.npz"], "already exists"),
                      (["--model", "m.json", "--save-npz", "m2.json"], "must end in .npz"),
                      (["--model", "m.json", "--against", "m.json", "--save-npz", "m3.npz"], "exactly one"),
                      (["--model", "m.json", "--save-npz", "nodir/m.npz"], "does not exist"),
                      (["--model", "m.npz", "--save-npz", "m4.npz"], "not a JSON model file")):
        assert est.main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and msg in err, (argv, err)


def _archive(path, members: dict):
    with open(path, "wb") as f:
        np.savez(f, **members)


def _good_members(tmp_path):
    write_npz(model_to_dict(normal_model()), tmp_path / "written")
    with np.load(tmp_path / "written") as z:
        return {k: z[k] for k in z.files}


def _bad_archives(tmp_path):
    good = _good_members(tmp_path)
    header = json.loads(str(good[HEADER]))
    out = {}

    def variant(name, **changes):
        members = {**good, **changes}
        for k, v in list(members.items()):
            if v is None:
                del members[k]
        _archive(tmp_path / name, members)
        out[name] = tmp_path / name

    variant("pickled", **{"embedding": np.array([{"x": 1}], dtype=object)})
    variant("pickled-header", **{HEADER: np.array(header, dtype=object)})
    variant("missing", **{"unembedding": None})
    variant("unreferenced", extra=np.zeros(3))
    variant("wrong-ndim", **{"embedding": np.zeros(5)})
    variant("wrong-rows", **{"embedding": np.zeros((2, 8))})  # the interval/exact loaders' shape checks
    variant("nan", **{"layers[0].heads[0].key": np.full((8, 8), np.nan)})
    variant("inf", **{"layers[0].mlp.b": np.array([np.inf] * 8)})
    variant("int", **{"unembedding": np.ones((1, 8), dtype=np.int64)})
    variant("no-header", **{HEADER: None})
    variant("header-not-json", **{HEADER: np.array("{not json")})
    variant("header-list", **{HEADER: np.array("[1]")})
    inline = {**header, "embedding": [[0] * 8] * 4}
    variant("inline-array", **{HEADER: np.array(json.dumps(inline)), "embedding": None})
    (tmp_path / "truncated").write_bytes((tmp_path / "missing").read_bytes()[:200])
    out["truncated"] = tmp_path / "truncated"
    with zipfile.ZipFile(tmp_path / "zip-not-npy", "w") as z:
        z.writestr("header.npy", b"not an npy file")
    out["zip-not-npy"] = tmp_path / "zip-not-npy"
    (tmp_path / "adir").mkdir()
    out["directory"] = tmp_path / "adir"
    out["devnull"] = os.devnull
    _archive(tmp_path / "good", good)
    return out, tmp_path / "good"


@pytest.mark.parametrize("mode", ["auto", "interval", "exact"])
def test_malformed_archives_are_one_line_exit_2(tmp_path, capsys, mode):
    bad, good = _bad_archives(tmp_path)
    assert est.main(["--model", str(good), "--mode", mode]) == 0  # control: the unbroken archive is read
    capsys.readouterr()
    for name, path in bad.items():
        assert est.main(["--model", str(path), "--mode", mode]) == 2, name
        out, err = capsys.readouterr()
        assert err.startswith("bounds.estimate: error: ") and err.count("\n") == 1 and "Traceback" not in err, \
            (name, err)


def test_read_npz_refuses_pickles_before_unpickling(tmp_path):
    bad, _ = _bad_archives(tmp_path)
    with pytest.raises(ModelFormatError, match="not a readable model archive"):
        read_npz(bad["pickled"])
    with pytest.raises(ModelFormatError, match="must be a unicode string|not a readable"):
        read_npz(bad["pickled-header"])


def test_a_fifo_is_refused_without_blocking(tmp_path, capsys):
    """is_npz looks at a path before opening it: opening a FIFO to read its first bytes would block forever."""
    os.mkfifo(tmp_path / "fifo")
    assert not is_npz(tmp_path / "fifo")
    for mode in ("auto", "interval", "exact"):
        assert est.main(["--model", str(tmp_path / "fifo"), "--mode", mode]) == 2
        assert "FIFO" in capsys.readouterr().err


def _declaring(tmp_path, shape, dtype="<f8"):
    """A valid model archive whose embedding member is replaced by a bare .npy header declaring ``shape``."""
    import io

    good = _good_members(tmp_path)
    _archive(tmp_path / "base", good)
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": dtype, "fortran_order": False, "shape": shape})
    out = tmp_path / f"declares-{'x'.join(map(str, shape))}"
    with zipfile.ZipFile(tmp_path / "base") as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, head.getvalue() if info.filename == "embedding.npy" else src.read(info))
    return out


def test_declared_shape_is_checked_before_allocation(tmp_path, capsys, monkeypatch):
    """A small archive whose .npy header declares 10^11 values (745 GiB) is refused from the header alone: the
    limit reads declared shapes, not member sizes, and no array is read."""
    from constructions.limit_transformer import npz

    huge = _declaring(tmp_path, (10**5, 10**6))
    assert huge.stat().st_size < 16384
    with zipfile.ZipFile(huge) as z:
        assert 8 * 10**11 <= npz.declared_bytes(z) < 8 * 10**11 + 10**5  # the embedding and the small arrays
        assert sum(i.file_size for i in z.infolist()) < npz.MAX_ARCHIVE_BYTES  # what the old limit read
    monkeypatch.setattr(np.lib.format, "read_array", lambda *a, **k: pytest.fail("an array was read"))
    with pytest.raises(ModelFormatError, match="MAX_ARCHIVE_BYTES"):
        read_npz(huge)
    assert est.main(["--model", str(huge)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "MAX_ARCHIVE_BYTES" in err


def test_declared_shape_within_the_limit_is_not_refused_by_it(tmp_path):
    """Negative control: the same forged member declaring a small shape passes the size limit (and is then
    refused for holding fewer bytes than it declares, by numpy's reader, not by the limit)."""
    small = _declaring(tmp_path, (4, 8))
    with zipfile.ZipFile(small) as z:
        from constructions.limit_transformer import npz

        assert npz.declared_bytes(z) < npz.MAX_ARCHIVE_BYTES
    with pytest.raises(ModelFormatError) as info:
        read_npz(small)
    assert "MAX_ARCHIVE_BYTES" not in str(info.value)


@pytest.mark.parametrize("mode", ["auto", "interval", "exact"])
def test_deeply_nested_json_model_is_one_line(tmp_path, capsys, mode):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    assert est.main(["--model", str(deep), "--mode", mode]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bounds.estimate: error: ") and err.count("\n") == 1 and "Traceback" not in err
    shallow = tmp_path / "shallow.json"  # control: the same loader reads past the nesting when it is shallow
    shallow.write_text("[" * 10 + "]" * 10)
    assert est.main(["--model", str(shallow), "--mode", mode]) == 2
    assert "recursion" not in capsys.readouterr().err

"""Hostile input files and interrupts end in one line, never a traceback (README, "Command-line tools").

Input files that are binary, deeply nested, not standard JSON or JSON of the wrong shape, given to the tools that
read them; Ctrl-C during ``verify.report``'s test collection and during its run.  Each refusal has a control: the
same reader accepts a good file.
"""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path

import pytest

from lengthgen_cli import UsageError, loads_json, read_json

ROOT = Path(__file__).resolve().parent.parent
DEEP = "[" * 100_000 + "]" * 100_000


def _one_line(capsys, module: str, argv: list[str], status: int = 2) -> str:
    rc = importlib.import_module(module).main(list(argv))
    _, err = capsys.readouterr()
    assert rc == status, (argv, rc, err)
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


@pytest.fixture
def hostile(tmp_path) -> dict[str, Path]:
    files = {"deep": DEEP, "nan": '{"a": NaN}', "cut": '{"a": [1, 2', "empty": ""}
    out = {k: tmp_path / f"{k}.json" for k in files}
    for k, text in files.items():
        out[k].write_text(text)
    out["binary"] = tmp_path / "binary.json"
    out["binary"].write_bytes(bytes(range(256)) * 4)
    return out


def test_read_json_refuses_every_hostile_file_in_one_line(hostile, tmp_path):
    says = {"deep": "nested too deeply", "nan": "NaN", "cut": "line 1", "empty": "not JSON", "binary": "UTF-8"}
    for name, path in hostile.items():
        with pytest.raises(UsageError, match=says[name]) as e:
            read_json(path, "input")
        assert "\n" not in str(e.value)
    with pytest.raises(UsageError, match="directory"):
        read_json(tmp_path, "input")
    good = tmp_path / "good.json"
    good.write_text('{"a": [1, 2.5]}')
    assert read_json(good) == {"a": [1, 2.5]} and loads_json("[1]", "x") == [1]  # control


def test_certify_runs_refuses_hostile_run_records(hostile, tmp_path, capsys):
    for name, path in hostile.items():
        folder = tmp_path / f"runs-{name}"
        folder.mkdir()
        shutil.copy(path, folder / "r.json")
        _one_line(capsys, "bounds.certify.cli", ["--runs", str(folder)])
    record = json.loads((ROOT / "docs" / "results" / "izzo2025-trained-witness.json").read_text())
    for broken in ({**record, "record": {**record["record"], "N": "five"}},
                   {**record, "record": {**record["record"], "runs": [7]}}, [record]):
        folder = tmp_path / f"runs-shape-{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        (folder / "r.json").write_text(json.dumps(broken))
        assert "not a bounds.experiments.measure run record" in _one_line(capsys, "bounds.certify.cli",
                                                                          ["--runs", str(folder)])


def test_figures_refuse_hostile_results_files(hostile, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    for name, path in hostile.items():
        folder = tmp_path / f"figs-{name}"
        folder.mkdir()
        shutil.copy(path, folder / "izzo2025-modp-quick.json")
        _one_line(capsys, "bounds.experiments.figures", ["--dir", str(folder)])
    folder = tmp_path / "figs-shape"
    folder.mkdir()
    (folder / "izzo2025-modp-quick.json").write_text(json.dumps({"preset": "quick", "tasks": [{"x": 1}]}))
    assert "fields its figures" in _one_line(capsys, "bounds.experiments.figures", ["--dir", str(folder)])


def test_hostile_results_and_checkpoints(hostile, tmp_path, capsys):
    _one_line(capsys, "verify.report", ["--results", str(hostile["deep"])])
    for value in ("[1, 2]", "5"):
        path = tmp_path / "r.json"
        path.write_text(value)
        _one_line(capsys, "verify.report", ["--results", str(path)])
    for name in ("deep", "binary"):
        _one_line(capsys, "counterexamples.periodic_local", ["--out", str(hostile[name])])


def test_ctrl_c_during_collection_and_run_of_verify_report(monkeypatch, tmp_path, capsys):
    """Ctrl-C while pytest collects (pytest catches it and returns INTERRUPTED) and while the checks run: one
    line ``verify.report: interrupted``, exit status 130.  Control: a collection that fails for another reason is
    the one-line collection error with status 2."""
    import pytest as pytest_module

    import verify.report as report

    own = tmp_path / "test_own.py"
    own.write_text("def test_x():\n    pass\n")
    def ctrl_c(*args, **kwargs):  # what pytest does on Ctrl-C: reports it and returns INTERRUPTED
        print("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!! KeyboardInterrupt !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!")
        return pytest_module.ExitCode.INTERRUPTED

    monkeypatch.setattr(pytest_module, "main", ctrl_c)
    err = _one_line(capsys, "verify.report", ["--run", "--tests", str(own)], status=130)
    assert err == "verify.report: interrupted\n"
    # control: a collection error is INTERRUPTED too, without the KeyboardInterrupt: the one-line collection error
    monkeypatch.setattr(pytest_module, "main", lambda *a, **k: pytest_module.ExitCode.INTERRUPTED)
    assert "could not collect" in _one_line(capsys, "verify.report", ["--run", "--tests", str(own)])

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "run_checks", interrupted)
    assert _one_line(capsys, "verify.report", ["--run"], status=130) == "verify.report: interrupted\n"

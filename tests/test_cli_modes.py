"""Every input checked before work, every option used or refused (README, "Command-line tools").

* Paths a tool writes at its end (``bounds.certify --runs --summary/--plots``, a reproduction's run folder and
  ``--results-dir``) are refused before any certificate or run starts: the work function is replaced by one
  that fails the test if called.
* A run record counts as done only when it is whole (a truncated record is run again, left out of summaries).
* Sizes are refused up front with their limit named (``bounds.compare``).
* An option the mode does not use is refused in one line naming it; the same command line without it is
  accepted (the control: the refusal is about that option, not the rest).
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from lengthgen_cli import Parser, UsageError, given_options, refuse_unused

ROOT = Path(__file__).resolve().parent.parent
MEASURED = ROOT / "docs" / "results" / "izzo2025-modp-quick.json"


def _main(module: str):
    return importlib.import_module(module).main


def _one_line(capsys, module: str, argv: list[str]) -> str:
    rc = _main(module)(list(argv))
    out, err = capsys.readouterr()
    assert rc == 2, (argv, rc, err)
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err



@pytest.fixture
def no_certificates(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a certificate was computed before the options were checked")

    monkeypatch.setattr("bounds.certify.runs.certify_seed", refuse)


def test_certify_runs_checks_summary_and_plots_first(witness_runs, tmp_path, capsys, no_certificates):
    base = ["--runs", str(witness_runs), "--seeds", "1"]
    note = tmp_path / "note.txt"
    note.write_text("mine\n")
    for extra, says in ((["--summary", str(tmp_path)], "is a directory"),
                        (["--summary", str(tmp_path / "nope" / "s.json")], "does not exist"),
                        (["--summary", str(witness_runs / "r.json")], "not a file this tool writes"),
                        (["--plots", str(note)], "not a folder")):
        err = _one_line(capsys, "bounds.certify.cli", base + extra)
        assert says in err and extra[0] in err, err
    assert note.read_text() == "mine\n" and json.loads((witness_runs / "r.json").read_text())["record"]  # untouched
    with pytest.raises(AssertionError, match="before the options were checked"):  # control: valid options reach work
        _main("bounds.certify.cli")(base + ["--summary", str(tmp_path / "s.json"), "--plots", str(tmp_path / "p")])


@pytest.mark.parametrize("paper", [["huang2024", "--figure", "1"], ["golowich2025", "--experiment", "scratchpad"]])
def test_reproduction_checks_its_folders_before_progress(paper, tmp_path, capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("runs started before the options were checked")

    monkeypatch.setattr("lengthgen_cli.sweep.run_specs", refuse)
    note = tmp_path / "note.txt"
    note.write_text("x")
    for extra, says in ((["--runs", str(note)], "--runs"),
                        (["--runs", str(tmp_path / "r"), "--results-dir", str(note)], "--results-dir"),
                        (["--runs", str(tmp_path / "r"), "--summarize-only", "--workers", "2"], "--workers")):
        err = _one_line(capsys, "bounds.experiments.reproduce", [*paper, *extra])
        assert says in err and "to run" not in err, err
    assert not (tmp_path / "r").exists()


def test_a_truncated_record_is_not_done(tmp_path):
    from lengthgen_cli.sweep import RunSpec, load_records, record_path, recorded, run_specs

    spec = RunSpec("k", "tests.experiments.toy_runs:square", {"x": 3})
    run_specs([spec], str(tmp_path))
    whole = Path(record_path(str(tmp_path), spec))
    assert recorded(str(tmp_path), spec) and len(load_records(str(tmp_path), [spec])) == 1  # control
    text = whole.read_text()
    whole.write_text(text[: len(text) // 2])  # a record cut short
    assert not recorded(str(tmp_path), spec) and load_records(str(tmp_path), [spec]) == []
    whole.write_text(json.dumps({**json.loads(text), "key": "another run"}))  # a record of another run
    assert not recorded(str(tmp_path), spec)
    assert run_specs([spec], str(tmp_path))["ran"] == 1 and recorded(str(tmp_path), spec)  # run again


def test_compare_refuses_sizes_up_front(tmp_path, capsys):
    from constructions.limit_transformer.serialize import save_model
    from constructions.tasks import ModPTask

    m = tmp_path / "m.json"
    save_model(ModPTask(2, 0).limit_transformer(), m)
    assert "MAX_STRINGS" in _one_line(capsys, "bounds.compare", [str(m), str(m), "--lengths", "25", "--max-strings",
                                                                 "16777216"])
    assert "--max-strings 65536" in _one_line(capsys, "bounds.compare", [str(m), str(m), "--lengths", "25",
                                                                         "--max-strings", "65536"])
    err = _one_line(capsys, "bounds.compare", [str(m), str(m), "--lengths", "3", "16", "16", "--max-strings", "65536"])
    assert "MAX_STRINGS = 65536" in err  # 3 lengths together: refused before length 3 is evaluated
    assert _main("bounds.compare")([str(m), str(m), "--lengths", "3"]) == 0  # control


# (module, command line with the unused option, the option named, the same command line without it)
UNUSED = [
    ("bounds.estimate", ["--measured", str(MEASURED), "--eps", "1/10"], "--eps", ["--measured", str(MEASURED)]),
    ("bounds.estimate", ["--measured", str(MEASURED), "--as-published"], "--as-published",
     ["--measured", str(MEASURED)]),
    ("bounds.estimate", ["--task", "modp", "--true-max-length", "5"], "--true-max-length", ["--task", "modp"]),
    ("bounds.estimate", ["--task", "simple", "--period", "3"], "--period", ["--task", "simple"]),
    ("bounds.estimate", ["--task", "modp", "--omega", "3"], "--omega", ["--task", "modp"]),
    ("bounds.certify.cli", ["--runs", "R", "--delta", "1/10", "--summarize-only"], "--delta", None),
    ("bounds.experiments.measure", ["--preset", "quick", "--summarize-only", "--steps", "5"], "--steps", None),
    ("bounds.experiments.measure", ["--preset", "quick", "--summarize-only", "--train-lengths", "4"],
     "--train-lengths", None),
    ("bounds.experiments.measure", ["--task", "simple", "--train-lengths", "4", "--period", "3"], "--period", None),
    ("bounds.experiments.measure", ["--task", "modp", "--train-lengths", "4", "--ray-address", "auto"],
     "--ray-address", None),
]


@pytest.mark.parametrize("module,argv,option,without", UNUSED, ids=[f"{m}:{o}" for m, _, o, _ in UNUSED])
def test_an_unused_option_is_refused(module, argv, option, without, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = _one_line(capsys, module, argv)
    assert re.search(rf"drop [^;]*{re.escape(option)}\b", err), err
    if without is not None:
        assert _main(module)(without) == 0, capsys.readouterr().err
        capsys.readouterr()


def test_certify_pair_refuses_runs_options_and_wrong_task_parameters(tmp_path, capsys):
    from constructions.limit_transformer.serialize import save_model
    from constructions.tasks import ModPTask

    m = tmp_path / "m.json"
    save_model(ModPTask(2, 0).limit_transformer(), m)
    pair = ["--model", str(m), "--target-fn", "--task", "modp", "--period", "2", "--max-length", "4",
            "--max-boxes", "1", "--time-budget", "600"]
    for extra, option in ((["--workers", "2"], "--workers"), (["--summary", str(tmp_path / "s.json")], "--summary"),
                          (["--omega", "2"], "--omega")):
        assert option in _one_line(capsys, "bounds.certify.cli", pair + extra)
    assert not (tmp_path / "s.json").exists()
    assert _main("bounds.certify.cli")(pair) == 0  # control


def test_given_options_sees_values_equal_to_defaults():
    """An option given with its default value is still given (so it is refused where unused); negative control:
    an option left out is not."""
    p = Parser(prog="t")
    p.add_argument("--eps", default="1/10")
    p.add_argument("--flag", action="store_true")
    assert given_options(p, ["--eps", "1/10"]) == {"eps"}
    assert given_options(p, []) == set()
    assert p.parse_args([]).eps == "1/10"  # defaults restored
    with pytest.raises(UsageError, match="drop --eps"):
        refuse_unused({"eps"}, ("--eps", "--flag"), "unused")
    refuse_unused({"flag"}, ("--eps",), "unused")  # not given: nothing refused


def test_measured_file_of_the_wrong_shape(tmp_path, capsys):
    good = json.loads(MEASURED.read_text())
    cases = {"tasks-int": {**good, "tasks": 5}, "eps-text": {**good, "eps": "x"},
             "task-no-period": {**good, "tasks": [{**good["tasks"][0], "params": {}}]},
             "spread-list": {**good, "tasks": [{**good["tasks"][0], "n_min_spread": [1]}]}}
    for name, data in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        assert "summary" in _one_line(capsys, "bounds.estimate", ["--measured", str(path)]), name
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    binary = tmp_path / "binary.json"
    binary.write_bytes(bytes(range(256)) * 4)
    for path in (deep, binary):
        _one_line(capsys, "bounds.estimate", ["--measured", str(path)])
    assert _main("bounds.estimate")(["--measured", str(MEASURED)]) == 0  # control: the real file


def test_an_interrupt_turned_into_a_system_error_is_still_one_line_and_130(capsys):
    """CPython can turn Ctrl-C inside a C-level call (a property of fractions.Fraction) into SystemError with the
    KeyboardInterrupt as its cause; the command convention reports it as the interrupt it is.  Control: a
    SystemError with no interrupt behind it is not swallowed."""
    from lengthgen_cli.parser import command

    def raising(error):
        @command
        def main(argv=None) -> int:
            raise error
        return main

    try:
        raise SystemError("returned a result with an exception set") from KeyboardInterrupt()
    except SystemError as e:
        wrapped = e
    assert raising(wrapped)() == 130
    assert capsys.readouterr().err.strip().endswith(": interrupted")
    with pytest.raises(SystemError):
        raising(SystemError("a real one"))()

"""The one output writer (lengthgen_cli.output): atomic, confined to the folder named, never over a device, a
FIFO, a directory or a file of another format -- and the tools that write through it.

Device nodes are made with os.mknod inside tmp_path (a copy of /dev/null's numbers), never under /dev."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from lengthgen_cli import UsageError
from lengthgen_cli.output import check_target, json_object_with, write_atomic, write_file, write_text

ROOT = Path(__file__).resolve().parent.parent


def _device(path: Path) -> tuple:
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return _node(path)


def _node(path: Path) -> tuple:
    st = os.lstat(path)
    return stat.S_IFMT(st.st_mode), st.st_rdev, st.st_ino


def _special(tmp_path: Path) -> dict[str, Path]:
    """Every kind of existing path that is not a regular file, inside tmp_path."""
    out = {"device": tmp_path / "dev"}
    _device(out["device"])
    out["fifo"] = tmp_path / "fifo"
    os.mkfifo(out["fifo"])
    out["directory"] = tmp_path / "dir"
    out["directory"].mkdir()
    out["link-to-device"] = tmp_path / "link-dev"
    out["link-to-device"].symlink_to(out["device"])
    out["link-to-fifo"] = tmp_path / "link-fifo"
    out["link-to-fifo"].symlink_to(out["fifo"])
    return out


@pytest.mark.parametrize("writer", [
    lambda p: write_atomic(p, {"a": 1}),
    lambda p: write_text(p, "text"),
    lambda p: write_file(p, lambda fh: fh.write(b"bytes"), binary=True),
    lambda p: check_target(p),
])
def test_never_over_a_file_of_another_kind(tmp_path, writer):
    for kind, path in _special(tmp_path).items():
        before = _node(path.resolve())
        with pytest.raises(UsageError, match="not a regular file"):
            writer(path)
        assert _node(path.resolve()) == before, kind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dev", "dir", "fifo", "link-dev", "link-fifo"]


def test_regular_files_are_replaced_atomically(tmp_path):
    """Negative control of the refusals: a regular file (and a link to one) is written, with no temporary left."""
    target = tmp_path / "out.json"
    target.write_text("{}")
    write_atomic(target, {"a": 1})
    assert json.loads(target.read_text()) == {"a": 1}
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_atomic(link, {"b": 2})
    assert json.loads(target.read_text()) == {"b": 2} and link.is_symlink()
    write_text(tmp_path / "sub" / "new.txt", "x", make_folder=True)
    assert (tmp_path / "sub" / "new.txt").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "out.json", "sub"]


def test_a_failed_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "out.json"
    target.write_text('{"old": 1}')

    def fail(fh):
        fh.write("partial")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_file(target, fail)
    assert target.read_text() == '{"old": 1}' and [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_confined_to_the_folder_named(tmp_path):
    inside = tmp_path / "inside"
    inside.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (inside / "escape").symlink_to(outside)
    for path in (inside / ".." / "outside" / "x.json", inside / "escape" / "x.json", outside / "x.json"):
        with pytest.raises(UsageError, match="outside the folder"):
            write_atomic(path, {}, within=inside)
        with pytest.raises(UsageError, match="outside the folder"):
            check_target(path, within=inside)
    assert list(outside.iterdir()) == []
    write_atomic(inside / "sub" / ".." / "ok.json", {}, within=inside)  # control: inside stays allowed
    assert (inside / "ok.json").exists()


def test_another_format_is_refused_before_work(tmp_path):
    note = tmp_path / "note.txt"
    note.write_text("my notes\n")
    with pytest.raises(UsageError, match="not a file this tool writes"):
        check_target(note, recognise=json_object_with(paper="ahuja2024"))
    own = tmp_path / "own.json"
    own.write_text(json.dumps({"paper": "ahuja2024"}))
    assert check_target(own, recognise=json_object_with(paper="ahuja2024")) == own.resolve()  # control
    with pytest.raises(UsageError, match="does not exist"):
        check_target(tmp_path / "missing" / "x.json")
    assert check_target(tmp_path / "missing" / "x.json", make_folder=True)  # created only when written


# ------------------------------------------------------------------------------------------ the tools


def _one_line(capsys, prefix: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(f"{prefix}: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_figures_cannot_be_placed_outside_dir_by_a_results_field(tmp_path, capsys):
    from bounds.experiments import figures

    d = tmp_path / "results"
    d.mkdir()
    summary = json.loads((ROOT / "docs" / "results" / "izzo2025-modp-quick.json").read_text())
    for preset in ("../../escaped", "/tmp/escaped", "..", "a/b"):
        summary["preset"] = preset
        (d / "izzo2025-modp-quick.json").write_text(json.dumps(summary))
        assert figures.main(["--dir", str(d)]) == 2, preset
        assert "preset" in _one_line(capsys, "bounds.experiments.figures")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["izzo2025-modp-quick.json", "results"]


def test_figures_refuse_a_device_where_a_figure_goes(tmp_path, capsys):
    from bounds.experiments import figures

    d = tmp_path / "results"
    d.mkdir()
    shutil.copy(ROOT / "docs" / "results" / "huang2024-fig1-quick.json", d)
    before = _device(d / "huang2024-fig1-quick.png")
    assert figures.main(["--dir", str(d)]) == 2
    assert "not a regular file" in _one_line(capsys, "bounds.experiments.figures")
    assert _node(d / "huang2024-fig1-quick.png") == before
    assert not (d / "huang2024-fig1-quick.svg").exists()  # nothing written before the refusal


@pytest.mark.parametrize("kind", ["device", "fifo", "directory", "link-to-device", "text"])
def test_reproduce_results_refused_before_any_run(tmp_path, capsys, monkeypatch, kind):
    from bounds.experiments import reproduce
    from lengthgen_cli import sweep

    monkeypatch.setattr(sweep, "run_specs", lambda *a, **k: pytest.fail("a run started"))
    special = _special(tmp_path)
    target = special.get(kind)
    if target is None:
        target = tmp_path / "note.txt"
        target.write_text("my notes\n")
    before = _node(target.resolve()), (target.read_bytes() if kind == "text" else None)
    argv = ["ahuja2024", "--table", "1", "--preset", "tiny", "--out", str(tmp_path / "runs"), "--results", str(target)]
    assert reproduce.main(argv) == 2
    _one_line(capsys, "bounds.experiments.reproduce ahuja2024")
    assert (_node(target.resolve()), (target.read_bytes() if kind == "text" else None)) == before
    assert not (tmp_path / "runs").exists()


def test_mutate_refuses_a_model_file_as_results_before_mutating(tmp_path, capsys, monkeypatch):
    from verify import mutate

    model = tmp_path / "model.json"
    model.write_text(json.dumps({"format": "lengthgen.limit-transformer", "version": 1, "alphabet": ["a"]}))
    text = model.read_bytes()
    monkeypatch.setattr(mutate, "run", lambda *a, **k: pytest.fail("mutations ran"))
    assert mutate.main(["--results", str(model)]) == 2
    assert "not a version-1 lengthgen results file" in _one_line(capsys, "verify.mutate")
    assert model.read_bytes() == text
    dev = tmp_path / "dev"
    before = _device(dev)
    assert mutate.main(["--results", str(dev)]) == 2
    _one_line(capsys, "verify.mutate")
    assert _node(dev) == before


def test_results_merge_never_writes_over_another_format(tmp_path):
    """verify.results.merge (the writer behind verify.report and the pytest plugin) refuses a model file and a
    device; a results file is merged (control)."""
    from verify.results import ResultsError, load, merge

    model = tmp_path / "model.json"
    model.write_text(json.dumps({"format": "lengthgen.limit-transformer", "version": 1, "layers": []}))
    with pytest.raises(ResultsError):
        merge(model, "tests", {"k": {"outcome": "passed"}})
    assert json.loads(model.read_text())["format"] == "lengthgen.limit-transformer"
    dev = tmp_path / "dev"
    before = _device(dev)
    with pytest.raises(ResultsError):
        merge(dev, "tests", {"k": {"outcome": "passed"}})
    assert _node(dev) == before
    good = tmp_path / "results.json"
    merge(good, "tests", {"k": {"outcome": "passed"}})
    assert load(good)["tests"] == {"k": {"outcome": "passed"}}


def test_crasp_trace_out_device_refused(tmp_path, capsys):
    from constructions.crasp import cli

    dev = tmp_path / "dev"
    before = _device(dev)
    assert cli.main(["trace", "majority", "aab", "--out", str(dev)]) == 2
    assert "not a regular file" in capsys.readouterr().err
    assert _node(dev) == before


def test_report_refuses_a_model_file_or_device_as_results_before_running(tmp_path, capsys, monkeypatch):
    from verify import report

    monkeypatch.setattr(report, "run_checks", lambda *a, **k: pytest.fail("checks ran"))
    model = tmp_path / "model.json"
    model.write_text(json.dumps({"format": "lengthgen.limit-transformer", "version": 1, "alphabet": ["a"]}))
    text = model.read_bytes()
    assert report.main(["--results", str(model), "--run"]) == 2
    assert "not a version-1 lengthgen results file" in _one_line(capsys, "verify.report")
    assert model.read_bytes() == text
    dev = tmp_path / "dev"
    before = _device(dev)
    assert report.main(["--results", str(dev), "--run"]) == 2
    _one_line(capsys, "verify.report")
    assert _node(dev) == before
    good = tmp_path / "results.json"  # control: a results file (or a new name) passes the check
    good.write_text(json.dumps({"version": 1, "tests": {}, "mutations": {}}))
    assert report.main(["--results", str(good), "--paper", "ahuja2024", "--json"]) == 0
    capsys.readouterr()


def test_reproduce_refuses_a_device_where_its_figure_goes_before_any_run(tmp_path, capsys, monkeypatch):
    from bounds.experiments import reproduce
    from lengthgen_cli import sweep

    monkeypatch.setattr(sweep, "run_specs", lambda *a, **k: pytest.fail("a run started"))
    before = _device(tmp_path / "res-fig3.svg")
    argv = ["ahuja2024", "--table", "1", "--preset", "tiny", "--out", str(tmp_path / "runs"), "--results",
            str(tmp_path / "res.json")]
    assert reproduce.main(argv) == 2
    assert "res-fig3.svg is a device" in _one_line(capsys, "bounds.experiments.reproduce ahuja2024")
    assert _node(tmp_path / "res-fig3.svg") == before
    d = tmp_path / "trained"
    d.mkdir()
    before = _device(d / "huang2024-fig1-quick.png")
    assert reproduce.main(["huang2024", "--figure", "1", "--preset", "quick", "--runs", str(tmp_path / "r2"), "--results-dir",
                           str(d)]) == 2
    assert "huang2024-fig1-quick.png is a device" in capsys.readouterr().err
    assert _node(d / "huang2024-fig1-quick.png") == before


def test_plot_stems_cover_every_figure_drawn():
    """The stems measure checks before a sweep are the ones figures() draws (so the check cannot go stale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bounds.experiments.training.plots import STEMS, figures

    drawn = set()
    for kind in ("modp", "simple"):
        summary = json.loads((ROOT / "docs" / "results" / f"izzo2025-{kind}-quick.json").read_text())
        for (_, stem), fig in figures(summary, "quick").items():
            drawn.add(stem)
            plt.close(fig)
    assert drawn and drawn <= set(STEMS)


def test_measure_refuses_a_device_among_its_plots_before_any_run(tmp_path, capsys, monkeypatch):
    from bounds.experiments import measure
    from lengthgen_cli import sweep

    monkeypatch.setattr(sweep, "run_specs", lambda *a, **k: pytest.fail("a run started"))
    plots = tmp_path / "plots"
    plots.mkdir()
    before = _device(plots / "simple-nmin.svg")
    argv = ["--preset", "quick", "--out", str(tmp_path / "runs"), "--results-dir", str(tmp_path / "res"),
            "--plots", str(plots)]
    assert measure.main(argv) == 2
    assert "simple-nmin.svg is a device" in capsys.readouterr().err
    assert _node(plots / "simple-nmin.svg") == before
    assert not (tmp_path / "runs").exists() and not (tmp_path / "res").exists()


def test_figures_check_reports_a_fifo_without_reading_it(tmp_path, capsys):
    from bounds.experiments import figures

    d = tmp_path / "results"
    d.mkdir()
    shutil.copy(ROOT / "docs" / "results" / "huang2024-fig1-quick.json", d)
    os.mkfifo(d / "huang2024-fig1-quick.png")
    assert figures.main(["--dir", str(d), "--check", "--pages", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "huang2024-fig1-quick.png: not a regular file" in out
    assert "huang2024-fig1-quick.svg: missing" in out  # control: the other figure is examined as before

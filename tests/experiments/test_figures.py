"""Every committed figure under docs/results shows the arrays its results file holds (bounds.experiments.figures,
lengthgen_cli.figure_data): the check redraws each figure from its JSON in memory and compares the plotted arrays with
the ones embedded in the committed PNG and SVG, and every PNG is shown in a docs page.  Controls: a changed value
in a results file, a figure without embedded data, a figure no results file draws and a figure no page shows are
each reported."""

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from bounds.experiments import figures  # noqa: E402
from bounds.experiments.measure import main as measure_main  # noqa: E402
from bounds.experiments.training.report import predicted  # noqa: E402
from lengthgen_cli.figure_data import embedded  # noqa: E402

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"


def test_every_committed_figure_agrees_with_its_results_file_and_is_shown_in_a_page():
    assert figures.check(str(RESULTS), str(RESULTS.parent)) == []


def test_a_figure_shown_in_no_page_is_reported(small_results, tmp_path_factory):
    pages = tmp_path_factory.mktemp("pages")
    (pages / "page.md").write_text("no image here\n")
    assert figures.check(str(small_results), str(pages)) == [
        f"{small_results / 'huang2024-fig1-quick.png'}: shown in no page of {pages}"]
    (pages / "page.md").write_text(f"![Figure 1]({small_results / 'huang2024-fig1-quick.png'})\n")
    assert figures.check(str(small_results), str(pages)) == []


def test_the_nmin_figures_plot_the_stored_prediction_and_measurement():
    """Read back from the committed PNGs, independently of the plotting code: the prediction line is the
    results file's predicted N, the measured line its N_min (the figure that once plotted a stale bound)."""
    for kind in ("modp", "simple"):
        data = json.loads((RESULTS / f"izzo2025-{kind}-quick.json").read_text())
        lines = {ln["label"]: ln for ln in embedded(str(RESULTS / "figures" / f"{kind}-nmin.png"))["data"]["axes"][1]["lines"]}
        assert lines["upper: proved N* <= (bounds.estimate)"]["y"] == [float(t["predicted"]["N"]) for t in data["tasks"]]
        assert lines["lower: certified N* >= (worst pair of the class)"]["y"] == [
            float(t["predicted"]["lower_N"]) for t in data["tasks"]]
        assert lines["measured N_min (test loss of the trained seeds)"]["y"] == [
            float(t["n_min"]) for t in data["tasks"] if t["n_min"] is not None]


@pytest.fixture
def small_results(tmp_path):
    """A results folder with one Huang et al. results file and its freshly drawn figure."""
    shutil.copy(RESULTS / "huang2024-fig1-quick.json", tmp_path)
    assert len(figures.regenerate(str(tmp_path))) == 2
    assert figures.check(str(tmp_path)) == []
    return tmp_path


def test_a_changed_value_is_reported(small_results):
    path = small_results / "huang2024-fig1-quick.json"
    data = json.loads(path.read_text())
    row = next(r for r in data["rows"] if r["accuracy_trained"] is not None)
    row["accuracy_trained"][1] -= 0.25
    path.write_text(json.dumps(data))
    problems = figures.check(str(small_results))
    assert len(problems) == 2 and all("differs from huang2024-fig1-quick.json" in p for p in problems), problems


def test_figures_without_data_or_without_a_source_are_reported(small_results):
    import matplotlib.pyplot as plt

    fig = plt.figure()
    fig.savefig(small_results / "huang2024-fig1-quick.png")  # the pixels of a figure, no embedded arrays
    fig.savefig(small_results / "stray.png")
    plt.close(fig)
    problems = figures.check(str(small_results))
    assert any("huang2024-fig1-quick.png: no embedded data" in p for p in problems), problems
    assert any("stray.png: no results file draws it" in p for p in problems), problems
    (small_results / "huang2024-fig1-quick.svg").unlink()
    assert any("huang2024-fig1-quick.svg: missing" in p for p in figures.check(str(small_results)))


def test_cli_check_and_usage_errors(small_results, capsys):
    (small_results / "page.md").write_text("![Figure 1](huang2024-fig1-quick.png)\n")
    assert figures.main(["--dir", str(small_results), "--pages", str(small_results), "--check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"problems": []}
    assert figures.main(["--dir", str(small_results / "nope")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_refresh_predictions_rewrites_only_the_predictions(tmp_path):
    """``bounds.experiments.measure --refresh-predictions`` recomputes the stored predictions with bounds.estimate; a
    hand-edited prediction is replaced, the measurements stay."""
    src = json.loads((RESULTS / "izzo2025-modp-quick.json").read_text())
    edited = json.loads(json.dumps(src))
    edited["tasks"][0]["predicted"]["N"] = 100000
    edited["tasks"][0]["ratio_predicted_over_measured"] = 1.0
    (tmp_path / "izzo2025-modp-quick.json").write_text(json.dumps(edited))
    assert measure_main(["--preset", "quick", "--refresh-predictions", "--results-dir", str(tmp_path), "--json"]) == 0
    out = json.loads((tmp_path / "izzo2025-modp-quick.json").read_text())
    for new, old in zip(out["tasks"], src["tasks"], strict=True):
        assert new["predicted"] == predicted(old["task_kind"], old["params"], src["eps"])
        assert new["ratio_predicted_over_measured"] == new["predicted"]["N"] / old["n_min"] if old["n_min"] else True
        assert {k: v for k, v in new.items() if k not in ("predicted", "ratio_predicted_over_measured")} == \
            {k: v for k, v in old.items() if k not in ("predicted", "ratio_predicted_over_measured")}
    assert {k: v for k, v in out.items() if k != "tasks"} == {k: v for k, v in src.items() if k != "tasks"}
    assert measure_main(["--preset", "paper", "--refresh-predictions", "--results-dir", str(tmp_path)]) == 2

"""The judging logic of the trained reproductions (bounds.experiments.golowich2025, huang2024) on synthetic
records: which seeds fit, the theory's prediction per cell, and agreement counted over fitted seeds only."""

import dataclasses

import pytest

from bounds.experiments import golowich2025 as G
from bounds.experiments import huang2024 as H


def test_scratchpad_spans_come_from_the_data_format():
    # coupled ids: every scratchpad token depends on the input ids equal to its own id and the previous one
    assert G.scratchpad_planted_spans(8, 2, coupled=True) == [1, 1, 1, 1]
    # sequence positions: scratchpad bit i of a length-l example sits at l + 1 + i, its inputs at j(i-1)+1..ji
    assert G.scratchpad_planted_spans(6, 1, coupled=False) == [6] * 6
    assert G.scratchpad_planted_spans(8, 2, coupled=False) == [8, 7, 6, 5]


@pytest.mark.parametrize("jump", [1, 2, 3, 4])
def test_scratchpad_prediction_coupled_yes_uncoupled_no(jump):
    coupled = G.scratchpad_prediction(jump, "coupled", (5, 20), (12, 20, 40, 96))
    ape = G.scratchpad_prediction(jump, "shifted-ape", (5, 20), (12, 20, 40, 96))
    assert coupled["predicted"] and coupled["local"] and coupled["span_train"] == coupled["span_test"] == 1
    assert not ape["predicted"] and not ape["local"] and ape["span_test"] > ape["span_train"]
    assert coupled["sparsity"] == ape["sparsity"] == jump + 1
    # control: with training ids too short for L >= 4 L_local the coupled cell leaves the hypothesis
    assert not G.scratchpad_prediction(jump, "coupled", (1, 3 * jump), (12,))["predicted"]


def _sp_record(K, acc, seeds=2):
    return {"K_train": K, "seeds": list(range(seeds)), "accuracy": acc, "seconds": 1.0, "steps": [10] * seeds,
            "final_loss": [0.1] * seeds, "arch": {"n_layer": 1}}


def test_sparse_parity_judges_fitted_seeds_only():
    preset = dataclasses.replace(G.PRESETS["sparse-parity"]["quick"], seeds=2)
    acc = {"1,20": [1.0, 0.5], "1,50": [0.97, 0.6], "1,100": [0.9, 0.5], "1,200": [0.85, 0.5],
           "2,20": [0.5, 0.5], "2,100": [0.5, 0.5]}  # k_test = 2 > K_train = 1: not a fit point, not judged
    s = G.summarize("sparse-parity", [_sp_record(1, acc)], preset)
    row = s["rows"][0]
    assert row["fitted"] == [True, False] and row["in_distribution"] == ["1,20", "1,50"]
    assert [(j["k_test"], j["generalizes"], j["agrees"]) for j in row["judged"]] == [(1, True, True)]
    assert row["judged"][0]["accuracy_fitted"] == {"1,100": 0.9, "1,200": 0.85}  # seed 1 (unfit) left out
    assert (s["judged"], s["agree"], s["never_fit"]) == (1, 1, [])
    # control: the same accuracies with no seed fitting give no judged cell and a never-fit entry
    acc["1,20"] = [0.9, 0.5]
    s = G.summarize("sparse-parity", [_sp_record(1, acc)], preset)
    assert s["judged"] == 0 and s["never_fit"][0]["cell"] == "1" and s["agreement_rate"] is None


def test_golowich_cell_step_budgets_key_only_their_cells():
    preset = G.PRESETS["sparse-parity"]["cpu"]
    assert (preset.steps(1), preset.steps(2)) == (4000, 16000)
    with_budgets = {s.kwargs["K_train"]: s for s in G.specs("sparse-parity", preset, "cpu", 1)}
    uniform = {s.kwargs["K_train"]: s for s in
               G.specs("sparse-parity", dataclasses.replace(preset, cell_steps=()), "cpu", 1)}
    assert with_budgets[2].kwargs["config"]["max_steps"] == 16000
    assert with_budgets[1].key == uniform[1].key  # a cell at the preset's budget keeps its records
    assert with_budgets[2].key != uniform[2].key  # control: a changed budget is a new run, never a reused one
    assert "max_steps = 16000 (App. E: 50000)" in G.deviations("sparse-parity", preset.arch,
                                                              with_budgets[2].kwargs["config"], 2)


def test_scratchpad_disagreement_is_counted():
    preset = dataclasses.replace(G.PRESETS["scratchpad"]["quick"], seeds=1)
    rec = {"jump": 1, "scheme": "shifted-ape", "seeds": [0], "seconds": 1.0, "steps": [5], "final_loss": [0.0],
           "accuracy": {"12": [1.0], "20": [0.99], "40": [0.95], "60": [0.9], "96": [0.85]}}
    s = G.summarize("scratchpad", [rec], preset)
    j = s["rows"][0]["judged"][0]
    assert s["rows"][0]["prediction"]["predicted"] is False and j["generalizes"] and not j["agrees"]
    assert (s["judged"], s["agree"]) == (1, 0)


def test_huang_deviations_name_every_difference_from_app_e3():
    arch = {"n_layer": 2, "n_head": 2, "d_model": 64, "lr": 3e-3, "activation": "gelu_pytorch_tanh", "steps": 2000}
    devs = H.deviations("majority_letters", "ape", arch, {"batch": 32, "max_steps": 300, "loss_target": 1e-3,
                                                          "test_samples": 100}, seeds=3)
    text = " | ".join(devs)
    for part in ("n_layer = 2 (App. E.3: 1)", "d_model = 64 (App. E.3: 256)", "lr = 0.003", "step budget 2000",
                 "batch = 32", "test_samples = 100", "3 seeds", "gelu_pytorch_tanh"):
        assert part in text, part
    same = H.deviations("binary_majority", "ape", {"n_layer": 1, "n_head": 1, "d_model": 16, "lr": 1e-3},
                        {"batch": 64, "max_steps": 30000, "loss_target": 1e-4, "test_samples": 2000,
                         "weight_decay": 0.01}, seeds=5)
    assert not any(p in " ".join(same) for p in ("n_layer", "d_model", "batch", "seeds", "step budget"))


def test_huang_accuracy_stop_is_opt_in_per_cell(monkeypatch):
    """A cell with ``stop_accuracy`` stops each seed on its in-distribution validation accuracy (App. E.3) and says
    so in its key, deviations and record; a cell without it keeps the loss stop, its key and its records."""
    pytest.importorskip("transformers")
    keys = {(sp.kwargs["task"], sp.kwargs["positions"]): sp.key for sp in H.specs(H.CPU, list(H.CPU.tasks), 2, "cpu", 1)}
    for (task, pe), key in keys.items():
        assert ("stop_accuracy" in key) == (H.CPU.tasks[task][pe].stop_accuracy is not None), key
    config = {"batch": 4, "max_steps": 4, "loss_target": 1e-3, "test_samples": 4}
    base = {"n_layer": 1, "n_head": 1, "d_model": 16, "lr": 1e-3}
    plain = H.deviations("tomita1", "ape", base, config, seeds=1)
    stopped = H.deviations("tomita1", "ape", {**base, "stop_accuracy": 1.0}, config, seeds=1)
    assert any("running training loss" in d for d in plain) and not any("validation" in d for d in plain)
    assert any("validation words" in d for d in stopped) and not any("running training loss" in d for d in stopped)
    monkeypatch.setattr(H, "EVAL_EVERY", 2)
    rec = H.run_cell("tomita1", "ape", {**base, "stop_accuracy": 1.01}, [0], config, device="cpu")  # unreachable
    assert rec["steps"] == [4] and [e[0] for e in rec["evaluations"][0]] == [2, 4] and rec["reached_target"] == [False]
    assert "evaluations" not in H.run_cell("tomita1", "ape", base, [0], config, device="cpu")


def test_huang_summary_lists_cells_that_never_fit():
    rec = {"task": "parity", "positions": "ape", "accuracy": [[0.5, 0.5, 0.5], [0.6, 0.5, 0.5]], "bins": [],
           "seconds": 1.0, "steps": [10, 10], "arch": {"n_layer": 1}, "final_loss": [0.7, 0.6]}
    ok = {**rec, "positions": "nope", "accuracy": [[1.0, 0.2, 0.1], [0.995, 0.3, 0.0]]}
    s = H.summarize([rec, ok], H.QUICK)
    assert [c["cell"] for c in s["never_fit"]] == ["parity/ape"] and s["never_fit"][0]["tried"]["n_layer"] == 1
    assert (s["fitted_cells"], s["cells"], s["judged"], s["agree"]) == (1, 2, 1, 1)
    assert s["rows"][1]["fitted"] == [True, True]


def test_huang_figure_legend_names_the_bins_when_the_first_task_has_no_run_in_the_first_panel():
    """The onelayer preset's first panel (APE) has no Binary Majority run: its legend still names the three bins;
    control: with the APE run removed, the first panel is NoPE's and names them too."""
    import matplotlib.pyplot as plt

    rec = {"task": "binary_majority", "positions": "nope", "accuracy": [[1.0, 1.0, 1.0]], "bins": [], "seconds": 1.0,
           "steps": [10], "arch": {"n_layer": 1}, "final_loss": [0.001]}
    ape = {**rec, "task": "majority_letters", "positions": "ape", "accuracy": [[1.0, 0.9, 0.8]]}
    for records, panels in (([rec, ape, {**ape, "positions": "nope"}], 2), ([rec, {**ape, "positions": "nope"}], 1)):
        fig = H.figure(H.summarize(records, H.ONELAYER))
        try:
            assert len(fig.axes) == panels and fig.axes[0].get_legend() is not None
            assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["in-dist", "51-100", "101-150"]
        finally:
            plt.close(fig)


def test_izzo_grid_overrides_change_only_their_task():
    from bounds.experiments.training.presets import IZZO_PRESETS, Grid, Preset

    base = IZZO_PRESETS["quick"]
    grids = (base.grids[0], Grid(**{**dataclasses.asdict(base.grids[-1]), "config": {"max_steps": 9}}))
    p = Preset("x", "", base.fn, base.config, base.seeds, grids)
    specs = {s.kwargs["task"] + str(s.kwargs["n"]): s for s in p.specs()}
    quick = {s.kwargs["task"] + str(s.kwargs["n"]): s for s in base.specs()}
    assert specs["modp2"].key == quick["modp2"].key
    assert specs["simple8"].kwargs["config"]["max_steps"] == 9 and specs["simple8"].key != quick["simple8"].key


def test_results_file_summarized_again_from_its_own_rows():
    """golowich2025 --from-results: a committed summary recomputed from its own per-cell accuracies and its own
    preset gives back every derived field (prediction, fit, judged cells, agreement); negative control: one
    seed's accuracy lowered below the fit criterion changes the recomputed fit and judgement."""
    import json
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "docs" / "results" / "golowich2025-sparse-parity-cpu.json"
    old = json.loads(path.read_text())
    again = json.loads(json.dumps(G.summarize(old["name"], *G.records_of_summary(old))))
    for key in ("rows", "judged", "agree", "agreement_rate", "missing", "theory"):
        assert again[key] == old[key], key
    fitted_row = next(i for i, r in enumerate(old["rows"]) if r["fitted_seeds"])
    inside = old["rows"][fitted_row]["in_distribution"][0]
    old["rows"][fitted_row]["per_seed"][inside] = [0.0] * len(old["rows"][fitted_row]["per_seed"][inside])
    broken = G.summarize(old["name"], *G.records_of_summary(old))
    assert broken["rows"][fitted_row]["fitted_seeds"] == 0 and broken["judged"] < again["judged"]

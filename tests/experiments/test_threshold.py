"""bounds.experiments.threshold: the threshold measured by certificate, joined from the certificate summary and the
measurement summaries of one sweep (synthetic summaries with known answers, and controls that move them)."""

import json

import pytest

from bounds.experiments.threshold import join, main, text, threshold


def _hz(seeds, every, k1000, med):
    return {"seeds": seeds, "every_length": every, "train_length": 9, "H": [8] * seeds,
            "X": [None if i < every else 18 for i in range(seeds)], "at_least": {"1000": k1000, "1000000000": every},
            "median_H_over_train": med, "shortest_X": None if every == seeds else 7,
            "shortest_witness": None if every == seeds else "0100000"}


def _summaries(every_by_n, task="modp(p=2,k=0)", kind="modp"):
    rows = [{"N": n, "seeds": 4, "plateau": [0.1, 0.01, 0.001, 0.02],
             "horizon": {"construction": _hz(4, e, max(e, 1), 10.0), "target": _hz(4, e, max(e, 1), 12.0)}}
            for n, e in every_by_n.items()]
    certify = {"eps": 0.1, "tasks": [{"task": task, "task_kind": kind, "rows": rows}]}
    measured = {"eps": 0.01, "tasks": [{"task": task, "n_min": 12,
                                        "predicted": {"lower_N": 38, "N": 431286, "lower_family": "bump"}}]}
    return certify, measured


def test_threshold_is_the_start_of_the_last_majority_run():
    certify, measured = _summaries({4: 0, 8: 2, 16: 1, 32: 2, 64: 4})
    r = join(certify, [measured], "t")
    t = r["tasks"][0]
    assert t["threshold"]["target"]["every_length"] == 32  # 16 has 1 of 4: the run restarts at 32
    assert t["threshold"]["target"]["1000"] == 32
    assert (t["lower"], t["upper"], t["n_min"]) == (38, 431286, 12)
    assert t["rows"][0]["median_X_over_train"]["target"] == 2 and t["rows"][-1]["median_X_over_train"]["target"] is None
    assert [r["fails"]["target"] for r in t["rows"]] == [1, 0.5, 0.75, 0.5, 0]
    assert [r["short_of_training"]["target"] for r in t["rows"]] == [1, 1, 1, 1, 1]  # H = 8 < N + 1 = 9
    # control: a last N below the majority means the grid never reaches the threshold
    certify, measured = _summaries({4: 0, 8: 2, 16: 1, 32: 2, 64: 1})
    assert join(certify, [measured], "t")["tasks"][0]["threshold"]["target"]["every_length"] is None
    # control: every N at a majority gives the smallest N
    certify, measured = _summaries({4: 2, 8: 3, 16: 4})
    assert join(certify, [measured], "t")["tasks"][0]["threshold"]["target"]["every_length"] == 4


def test_threshold_reads_fractions_not_counts():
    rows = [{"N": 8, "fraction": {"target": {"every_length": 0.5}}},
            {"N": 16, "fraction": {"target": {"every_length": 0.49}}}]
    assert threshold(rows, "target", "every_length") is None
    rows[1]["fraction"]["target"]["every_length"] = 0.5
    assert threshold(rows, "target", "every_length") == 8


def test_text_names_what_each_number_is():
    certify, measured = _summaries({4: 0, 8: 4})
    out = text(join(certify, [measured], "t"))
    assert "N_min < lower is no contradiction" in out and "38 <= N* <= 431286" in out
    assert "threshold: every length 8" in out


def test_a_task_without_measurement_is_refused():
    from lengthgen_cli import UsageError

    certify, measured = _summaries({4: 0})
    measured["tasks"][0]["task"] = "modp(p=3,k=0)"
    with pytest.raises(UsageError, match="in no measurement summary"):
        join(certify, [measured], "t")


def test_command_writes_the_results_file_inside_its_folder(tmp_path, capsys):
    certify, measured = _summaries({4: 0, 8: 4})
    (tmp_path / "izzo2025-certify-t.json").write_text(json.dumps(certify))
    (tmp_path / "izzo2025-modp-t.json").write_text(json.dumps(measured))
    assert main(["--name", "t", "--results-dir", str(tmp_path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    stored = json.loads((tmp_path / "izzo2025-threshold-t.json").read_text())
    assert printed == stored and stored["tasks"][0]["threshold"]["target"]["every_length"] == 8


@pytest.mark.parametrize("argv,msg", [
    (["--name", "../x"], "letters, digits"),
    (["--results-dir", "/nonexistent-folder"], "is not a folder"),
    (["--name", "missing"], "certificate summary"),
])
def test_usage_errors_are_one_line(argv, msg, tmp_path, capsys):
    if argv[0] == "--name" and argv[1] == "missing":
        argv = argv + ["--results-dir", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert msg in err and "\n" not in err


def test_a_summary_without_target_horizons_is_refused(tmp_path, capsys):
    certify, measured = _summaries({4: 0})
    del certify["tasks"][0]["rows"][0]["horizon"]["target"]
    (tmp_path / "izzo2025-certify-t.json").write_text(json.dumps(certify))
    (tmp_path / "izzo2025-modp-t.json").write_text(json.dumps(measured))
    assert main(["--name", "t", "--results-dir", str(tmp_path)]) == 2
    assert "--target-fn" in capsys.readouterr().err
    assert not (tmp_path / "izzo2025-threshold-t.json").exists()


@pytest.mark.parametrize("bad", [[], {"tasks": 3}, {"tasks": [{"task": "modp(p=2,k=0)"}]}])
def test_a_malformed_measurement_summary_is_named(bad, tmp_path, capsys):
    certify, measured = _summaries({4: 0})
    (tmp_path / "izzo2025-certify-t.json").write_text(json.dumps(certify))
    (tmp_path / "izzo2025-modp-t.json").write_text(json.dumps(bad))
    assert main(["--name", "t", "--results-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "izzo2025-modp-t.json: not a bounds.experiments.measure summary" in err and "\n" not in err
    (tmp_path / "izzo2025-modp-t.json").write_text(json.dumps(measured))  # control: the well-formed one joins
    assert main(["--name", "t", "--results-dir", str(tmp_path)]) == 0

"""The --measured table of bounds.estimate (bounds.measured.text) on the committed summaries: a task whose seed mean
never falls below eps reads ``never``, never Python's ``None``; the columns line up with the header; one line (and a
--json field) says what the bracket and a measured N_min are each about."""

import json
from pathlib import Path

from bounds.measured import compare, text

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results"


def test_never_reached_reads_never_and_columns_align():
    path = RESULTS / "izzo2025-simple-quick.json"
    stored = {json.dumps(t["params"], sort_keys=True): t["predicted"] for t in json.loads(path.read_text())["tasks"]}
    r = compare(str(path), "simple", lambda kind, params, eps: stored[json.dumps(params, sort_keys=True)])
    assert any(row["measured_n_min"] is None for row in r["rows"])  # omega = 8 in the quick preset: the control
    out = text(r).splitlines()
    assert "None" not in "\n".join(out)
    never = next(line for line in out if "omega=8" in line)
    assert never.split()[3] == "never"
    header = out[1]
    for line in out[2:2 + len(r["rows"])]:
        for column in ("per-seed", "upper/measured", "trained model"):
            start = header.index(column)
            assert line[start - 1] == " " and line[start] != " ", (column, line)


def test_the_reading_of_each_number_is_printed_and_in_json(capsys):
    """The bracket is about the worst pair of the class, N_min about trained models: said in the text and in --json
    (control: the reading is absent from a table that lacks it, so the check can fail)."""
    from bounds.estimate import main

    path = RESULTS / "izzo2025-modp-quick.json"
    assert main(["--task", "modp", "--measured", str(path)]) == 0
    out = capsys.readouterr().out
    assert "worst pair of the class" in out and "N_min < lower does not contradict" in out
    assert main(["--task", "modp", "--measured", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "worst pair of the class" in data["reading"]
    bare = {**data, "reading": ""}
    assert "worst pair" not in text(bare)

"""The GPT-2 pair certificate's horizon (H, X) and its time budget (the whole command's, every phase).

No test here reads the wall clock: the certifier's clock (``bounds.certify.search.clock``, which the GPT-2
search shares through :class:`bounds.certify.search.Deadline`) is replaced by one that advances one unit per
enclosure evaluation, so "time" is work done (scripts/bench_certify_gpt2.py measures seconds)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from bounds.certify import gpt2, gpt2_search, search  # noqa: E402
from bounds.certify.gpt2_difference import PairDifference  # noqa: E402
from bounds.certify.gpt2_search import certify_pair  # noqa: E402
from tests.certify.gpt2_checks import work_clock  # noqa: E402
from tests.certify.test_gpt2 import _saved  # noqa: E402

SLACK = 6  # evaluations one phase may finish after the deadline (one branch-and-bound step: 2 per last token)


@pytest.fixture(scope="module")
def form(tmp_path_factory):
    return gpt2.load(_saved(tmp_path_factory.mktemp("gpt2h"), 11), alphabet=[1, 2])


def _per_length_max(f, g, lengths):
    """max over every input of n tokens of max_j |f_j - g_j|, by the torch forward (independent of the certificate)."""
    return {n: max(float(np.max(np.abs(f.torch_logits(list(ids)) - g.torch_logits(list(ids)))))
                   for ids in itertools.product(f.alphabet, repeat=n)) for n in lengths}


def test_horizon_of_a_pair_built_to_fail_first_at_a_known_length(form):
    """eps is put between the largest |f - g| over inputs of up to n* - 1 tokens and the largest at n* tokens
    (torch forward, every input; n* the first length whose largest difference is a new record): the first failure
    is at model length n* + 1, so H = n* and X = n* + 1."""
    g = form.with_params(lnf=(form.lnf[0] + 0.5 * np.eye(form.d)[1], form.lnf[1]))
    m = _per_length_max(form, g, range(1, 6))
    record = [n for n in range(2, 6) if m[n] > max(m[j] for j in range(1, n)) * 1.01]
    assert record, m  # the draw has a length where the difference grows
    n_star = record[0]
    eps = (max(m[j] for j in range(1, n_star)) + m[n_star]) / 2
    cert = certify_pair(form, g, eps, max_length=8, budget_s=60)
    h = cert.horizon.record()
    assert (h["H"], h["X"], h["exact"]) == (n_star, n_star + 1, True), (h, m, eps)
    assert cert.verdict == "fails" and len(h["witness"]["string"]) == n_star
    ids = h["witness"]["string"]
    assert float(np.max(np.abs(form.torch_logits(ids) - g.torch_logits(ids)))) > eps
    # control: with eps above every difference up to 5 tokens, nothing fails up to model length 6
    above = certify_pair(form, g, max(m.values()) * 1.01, max_length=5, budget_s=60, max_boxes=8).horizon.record()
    assert above["X"] is None or above["X"] > 6
    assert above["every_length"] or above["H"] >= 6


def test_a_model_against_itself_is_within_eps_at_every_length(form):
    h = certify_pair(form, form, 0.01, budget_s=30).horizon.record()
    assert h["every_length"] and h["H"] is None and h["X"] is None


def test_command_line_leads_with_the_horizon_and_json_carries_it(tmp_path, capsys):
    import transformers

    from bounds.certify.cli import main

    path = _saved(tmp_path, 12)
    m = transformers.GPT2LMHeadModel.from_pretrained(path)
    import torch

    with torch.no_grad():
        m.transformer.ln_f.weight[2] += 1.0
    m.save_pretrained(tmp_path / "changed")
    argv = ["--model", path, "--against", str(tmp_path / "changed"), "--alphabet", "1,2", "--eps", "0.05"]
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    h = rec["horizon"]
    assert rec["verdict"] == "fails" and h["X"] is not None and h["H"] < h["X"]
    assert h["lengths"].startswith("model lengths")
    assert main(argv) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("horizon: ") and f"first failure at length {h['X']}: token ids" in first, first


# --------------------------------------------------------------------------------------------- time budget
@pytest.fixture
def work(monkeypatch):
    """The work clock, advanced by PairDifference.difference_and_split (every evaluation (difference() calls it too))."""
    return work_clock(monkeypatch, PairDifference, "difference_and_split")


def _slow_pair(form):
    """A pair whose certificate needs many evaluations (the stream differs: an ln_2 change)."""
    return form, form.with_params(ln2=(form.ln2[0] + 0.3 * np.eye(form.d)[2], form.ln2[1]))


@pytest.mark.parametrize("budget", [1, 7, 20, 45, 90])
def test_every_phase_stops_at_the_budget(form, budget, work):
    """Budgets ending in the enumeration (16 lengths x 2 last tokens), the branch-and-bound and the horizon: the
    work never exceeds the budget by more than one step of a phase; a length not reached is not claimed (U = inf,
    never "certified")."""
    f, g = _slow_pair(form)
    cert = certify_pair(f, g, 1e-4, budget_s=budget)
    assert work.t <= budget + SLACK
    r = cert.reached
    if r["enumerated_to"] < r["enumeration_target"]:
        assert cert.upper == float("inf") and cert.verdict != "certified" and r["budget_spent"]


def test_a_phase_that_ignores_the_deadline_is_caught(form, work, monkeypatch):
    """Negative control: with the deadline's checks disabled (each phase runs to its own end) the same budget is
    overrun by far more than the slack."""
    monkeypatch.setattr(search.Deadline, "expired", lambda self: False)
    f, g = _slow_pair(form)
    certify_pair(f, g, 1e-4, budget_s=7, max_boxes=64)
    assert work.t > 7 + SLACK


def test_the_command_budget_counts_loading_and_holds(tmp_path, capsys, work, monkeypatch):
    """``--time-budget`` is the whole command's: a command whose loading already used it (``started`` long ago)
    certifies nothing and says so; a command with a budget of 5 units does at most 5 + SLACK evaluations."""
    from bounds.certify import gpt2_cli
    from bounds.certify.cli import _parser

    path = _saved(tmp_path, 13)
    argv = ["--model", path, "--against", path, "--alphabet", "1,2", "--eps", "1e-9", "--time-budget", "5", "--json"]
    args = _parser().parse_args(argv)
    given = {"model", "against", "alphabet", "eps", "time_budget", "json"}
    import time

    monkeypatch.setattr(gpt2_search, "PairDifference", lambda f, g, **kw: _ChangedDifference(f, **kw))
    rec = json.loads(gpt2_cli.run(args, given, started=time.perf_counter() - 10**6))
    assert rec["reached"]["enumerated_to"] == 0 and rec["upper"] == "inf"  # strict JSON writes inf so
    assert rec["verdict"] == "undetermined" and work.t <= SLACK
    before = work.t
    rec = json.loads(gpt2_cli.run(args, given, started=time.perf_counter()))
    assert work.t - before <= 5 + SLACK


class _ChangedDifference(PairDifference):
    """f against f with an ln_2 weight changed (so the command has work to do with one saved model)."""

    def __init__(self, f, **kw):
        super().__init__(f, f.with_params(ln2=(f.ln2[0] + 0.3 * np.eye(f.d)[2], f.ln2[1])), **kw)

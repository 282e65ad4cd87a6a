"""Checks shared by the GPT-2 certificate's tests (NoPE and periodic positions alike)."""

import numpy as np

from bounds.certify.gpt2_search import certify_pair


def assert_small_ln_f_change_certified(form, lengths) -> None:
    """``form`` against a copy with one ln_f weight + 1e-4 is certified within eps = 0.01, the certified U bounds
    the torch difference on random inputs of the given ``lengths`` (beyond the enumerated ones), and (negative
    control) below the attained difference the same pair is not certified."""
    g = form.with_params(lnf=(form.lnf[0] + 1e-4 * np.eye(form.d)[3], form.lnf[1]))
    cert = certify_pair(form, g, eps=0.01, max_length=6, budget_s=20)
    assert cert.verdict == "certified"
    rng = np.random.default_rng(0)
    for n in lengths:
        ids = [int(a) for a in rng.choice(form.alphabet, size=n)]
        assert np.max(np.abs(form.torch_logits(ids) - g.torch_logits(ids))) <= cert.upper
    assert certify_pair(form, g, eps=cert.lower / 2, max_length=6, budget_s=5).verdict == "fails"


class Work:
    """A clock advanced by the work itself (never the wall clock): one unit per call of the counted method."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def work_clock(monkeypatch, cls, method: str) -> Work:
    """``bounds.certify.search.clock`` replaced by a :class:`Work` clock that ``cls.method`` advances by one per call
    (the certificate's unit of work: one enclosure evaluation of a batch of boxes or inputs)."""
    from bounds.certify import search

    w = Work()
    monkeypatch.setattr(search, "clock", w)
    orig = getattr(cls, method)

    def counted(self, *a, **k):
        w.t += 1
        return orig(self, *a, **k)

    monkeypatch.setattr(cls, method, counted)
    return w

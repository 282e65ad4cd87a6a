"""A one-layer GPT-2 with an absolute position table (APE, a learned ``wpe`` of R rows that is not periodic) against
its task, on the inputs its table defines.

**Statement.**  For a target of :mod:`bounds.certify.gpt2_targets` (Huang et al.'s Figure 1 format ``$ x_1 ... x_n
#``, the answer read at ``#``, App. E.2.1) and every input ``$ x_1 .. x_n #`` of *model length* n + 2 <= R (``$``
at position 0, ``#`` at n + 1: the positions Huang et al.'s test inputs use, offset 0), x over the target's letters
with ``margin(x) >= mu`` (ties excluded):

    gap(x) = logit_y(x) - max_{j in J, j != y} logit_j(x) > delta

(y the answer, J as in :mod:`bounds.certify.gpt2_task`).  Beyond R positions the saved model is undefined (its table
has no row there), so nothing is claimed about longer inputs: never "at every length".

**Proof.**  With positions, order matters: the enclosure's classes are (token, position).  An input of n letters
reads the table's rows 0..n + 1 only, so on it the model equals the form whose table is those n + 2 rows read with
period n + 2 (every position its own class; :mod:`bounds.certify.gpt2`, ``absolute=True``), and its logits at ``#``
are enclosed on the input's point box by :class:`bounds.certify.gpt2_task.GapEnclosure` (float64, outward rounding;
many classes: item 5 of :mod:`bounds.certify.gpt2_enclosure`; ``centred=False``, the box being a point).  For
n = 1, 2, ... in increasing order every word of letters^n is enumerated (lexicographic), its label and whether
margin >= mu decided in integers (:meth:`Target.decide`); a word in the statement is *certified* when its gap's
lower end exceeds delta and *fails* when its upper end is below delta.

Verdict: ``certified`` when every n = 1..R - 2 was enumerated and every word certified ("on every input of model
length <= R; undefined beyond its table"); ``fails`` at the first n with a failing word (all words of that n are
evaluated, so the failure is a **shortest** one; the word of least upper end is reported, re-run through the torch
forward); else ``undetermined`` with the horizon H: every input of the statement of model length <= H (at most H - 2
letters) has gap > delta, and why the lengths beyond were not decided (the time budget, the size limit
:data:`MAX_WORDS` on the words enumerated, ``max_length``, or a word whose enclosure straddles delta).  The
horizon record is the NoPE task's (:func:`bounds.certify.gpt2_task.horizon_record`: model lengths, from 3 = one
letter), worded by :func:`bounds.certify.horizon.horizon_line`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from bounds.certify.gpt2_search import MAX_CONFIGURATIONS
from bounds.certify.gpt2_task import FIRST_LENGTH, GapEnclosure, horizon_record, task_ids, torch_gap
from bounds.certify.horizon import Horizon, horizon_line
from bounds.certify.search import Deadline

MAX_WORDS = MAX_CONFIGURATIONS  # words enumerated over all n = 1..N0 (each word is its own class configuration)
CHUNK_ELEMENTS = 2**22  # words per enclosure call: at most this many (word, class, width) entries


def word_count(k: int, N: int) -> int:
    """The number of words of 1..N letters over k letters."""
    return sum(k**n for n in range(1, N + 1))


def size_limit(k: int, top: int) -> int:
    """The largest N <= top whose words (all lengths 1..N) fit MAX_WORDS (0 if not even one letter's)."""
    N = 0
    while N < top and word_count(k, N + 1) <= MAX_WORDS:
        N += 1
    return N


def words(n: int, k: int) -> np.ndarray:
    """Every word of n letters (letter indices 0..k-1) as rows, in lexicographic order."""
    idx = np.arange(k**n, dtype=np.int64)
    return (idx[:, None] // k ** np.arange(n - 1, -1, -1, dtype=np.int64)[None, :]) % k


def prefix_form(form, n: int):
    """The form read on inputs of n letters and ``#``: the table's rows 0..n + 1 read with period n + 2 (every
    position its own class), which is the model on those n + 2 positions (module docstring)."""
    return dataclasses.replace(form, wpe=form.wpe[:n + 2].copy(), defined_up_to=n + 2, torch_model=None)


@dataclass
class TableTaskCertificate:
    verdict: str
    task: str
    mu: Fraction
    delta: float
    readout: str
    R: int  # the table's rows: the model reads at most R positions
    N0: int  # letters: every word of 1..N0 letters was enumerated
    target: int  # letters the enumeration was to reach (R - 2, or less where capped)
    lower: float  # certified lower end of the gap over every enumerated word of the statement
    upper: float  # smallest certified upper end among them
    witness: dict
    horizon: Horizon
    why: str | None  # why the lengths beyond H are not decided (None: nothing is left)
    lengths: list = field(default_factory=list)  # per n: [words in the statement, min gap lo, min gap hi]
    words: int = 0
    seconds: float = 0.0

    def record(self) -> dict:
        return {"verdict": self.verdict, "task": self.task, "margin": str(self.mu), "margin_float": float(self.mu),
                "logit_margin": self.delta, "readout": self.readout, "gap_lower": self.lower,
                "gap_upper": self.upper, "N0": self.N0, "witness": self.witness, "lengths": self.lengths,
                "defined_up_to": self.R, "positions": f"absolute positions (a table of {self.R} rows)",
                "reached": {"enumerated_to": self.N0, "enumeration_target": self.target, "words": self.words,
                            "why_not_further": self.why},
                "horizon": horizon_record(self.horizon), "seconds": self.seconds}


def _masses(w: np.ndarray, k: int, P: int) -> np.ndarray:
    """Class counts (B, (k + 1) P) of ``$ w #``: letter i at position p is class ``i P + p``, ``#`` at n + 1."""
    B, n = w.shape
    m = np.zeros((B, (k + 1) * P), dtype=np.float64)
    rows = np.arange(B)
    for j in range(n):
        m[rows, w[:, j] * P + j + 1] = 1.0
    m[:, k * P + n + 1] = 1.0
    return m


def certify_table_task(form, target, mu, delta: float = 0.0, readout: str = "argmax", max_length: int | None = None,
                       budget_s: float = 30.0, deadline: Deadline | None = None,
                       vocab: dict | None = None) -> TableTaskCertificate:
    """The verdict of the module docstring.  ``form`` is read with ``absolute=True`` (``defined_up_to`` = R), its
    alphabet the target's letters' token ids then the separator's.  ``max_length`` (letters) caps the enumeration;
    given, its words must fit MAX_WORDS (else ValueError naming the limit), not given, the enumeration goes to
    R - 2 letters or as far as MAX_WORDS allows.  Every length stops at ``deadline`` (or ``budget_s``)."""
    deadline = Deadline.within(budget_s, deadline)
    R = form.defined_up_to
    if R is None:
        raise ValueError("the model has no absolute position table: certify it with bounds.certify.gpt2_task")
    mu = Fraction(mu)
    ids, outputs, k = task_ids(form, target, vocab)
    top = R - 2
    if top < 1:
        raise ValueError(f"a position table of {R} rows reads no input $ x #: it needs at least 3 rows")
    want = top if max_length is None else min(max_length, top)
    if max_length is not None and word_count(k, want) > MAX_WORDS:
        raise ValueError(f"--max-length {max_length}: the words of 1..{want} letters over {k} letters number "
                         f"{word_count(k, want)}, more than MAX_WORDS = {MAX_WORDS} (at most {size_limit(k, want)} "
                         "letters fit)")
    goal = min(want, size_limit(k, want))
    why = None
    if goal < top:
        why = (f"MAX_WORDS = {MAX_WORDS} words ({k}^n words of n letters)" if goal < want else
               f"--max-length {max_length}")
    lengths, count = [], 0
    H, X, undecided = FIRST_LENGTH - 1, None, None
    lower, upper = np.inf, np.inf
    best = None  # (hi, lo, word, label) of the failing word of least upper end at the first failing length
    N0 = 0
    for n in range(1, goal + 1):
        ge = GapEnclosure(prefix_form(form, n), outputs, readout, centred=False)
        P = n + 2
        t = k * P + n + 1  # the last position's class: '#' at position n + 1
        all_w = words(n, k)
        B = max(1, CHUNK_ELEMENTS // (((k + 1) * P + 1) * form.d))
        row = [0, np.inf, np.inf]
        fails_here, undecided_here, done = [], False, True
        for a in range(0, len(all_w), B):
            if deadline.expired():
                done = False
                break
            w = all_w[a:a + B]
            counts = (w[:, :, None] == np.arange(k)[None, None, :]).sum(axis=1)
            labels, ok = target.decide(counts, mu)
            if not ok.any():
                continue
            w, labels = w[ok], labels[ok]
            m = _masses(w, k, P) / P
            r = np.full(len(w), 1.0 / P)
            lo, hi = ge.gaps(t, np.nextafter(r, -np.inf), np.nextafter(r, np.inf), np.nextafter(m, -np.inf),
                             np.nextafter(m, np.inf))
            sel = np.arange(len(w))
            lo, hi = lo[sel, labels], hi[sel, labels]
            row[0] += len(w)
            row[1], row[2] = min(row[1], float(lo.min())), min(row[2], float(hi.min()))
            bad = np.flatnonzero(hi < delta)
            if len(bad):
                i = bad[np.argmin(hi[bad])]
                fails_here.append((float(hi[i]), float(lo[i]), [int(c) for c in w[i]], int(labels[i]), len(bad)))
            undecided_here |= bool(np.any((lo <= delta) & (hi >= delta)))
        if not done:
            why = f"the time budget ran out during the words of {n} letters"
            break
        N0 = n
        count += row[0]
        lengths.append([row[0], None if row[0] == 0 else row[1], None if row[0] == 0 else row[2]])
        if row[0]:
            lower, upper = min(lower, row[1]), min(upper, row[2])
        if fails_here:
            hi_, lo_, word, label, _ = min(fails_here)
            best = (hi_, lo_, word, label, sum(f[4] for f in fails_here))
            X = n + 2
            break
        if undecided_here and undecided is None:
            undecided = n
        if undecided is None:  # every word of 1..n letters certified (or none is in the statement)
            H = n + 2
    if X is not None:
        verdict = "fails"
        why = None
    elif N0 == top and undecided is None:
        verdict, H = "certified", R
    else:
        verdict = "undetermined"
        if undecided is not None:
            why = (f"a word of {undecided} letters has a gap enclosure around {delta:.6g}"
                   + ("" if why is None else f"; then {why}"))
    witness = _witness(form, target, ids, outputs, best, readout)
    hz = Horizon(FIRST_LENGTH, H, False, X, None if best is None else best[0],
                 {} if best is None else {**witness, "length": X, "letters": witness["length"],
                                          "string": witness["ids"], "window": [],
                                          "description": f"`{witness['symbols']}`"}, 0, deadline.elapsed())
    return TableTaskCertificate(verdict, target.name, mu, float(delta), readout, R, N0, goal, float(lower),
                                float(upper), witness, hz, why, lengths, count, deadline.elapsed())


def _witness(form, target, ids, outputs, best, readout) -> dict:
    """The shortest failing word: letters, ids (with ``#``), the model's ids (BOS first), its margin, answer, the
    certified gap and the torch forward's gap and prediction (the saved model: it reads at most R positions)."""
    if best is None:
        return {"ids": None, "symbols": None}
    hi, lo, word, label, many = best
    letters = [target.letters[c] for c in word]
    seq = [ids[c] for c in letters] + [ids[target.sep]]
    counts = [letters.count(c) for c in target.letters]
    w = {"length": len(word), "symbols": "".join(letters) + target.sep, "ids": seq, "model_ids": [form.bos, *seq],
         "counts": dict(zip(target.letters, counts, strict=True)), "margin": str(target.margin(counts)),
         "answer": target.classes[label], "answer_id": outputs[label], "gap_lower": lo, "gap_upper": hi,
         "failing_words_of_this_length": many, "torch_gap": None, "torch_prediction": None}
    if form.torch_model is not None:
        w["torch_gap"], w["torch_prediction"] = torch_gap(form, seq, outputs, label, readout)
    return w


# ------------------------------------------------------------------------------------------------ the text
def report(rec: dict, header: bool = True) -> str:
    """The text of one margin's certificate (``header``: the model and the statement)."""
    R, mu, d = rec["defined_up_to"], rec["margin"], rec["logit_margin"]
    lines = [f"horizon at margin {mu}: {horizon_line(rec)}",
             "  (lengths are model lengths: $, the letters and #; n below counts the letters)"]
    if header:
        ck = rec["import_check"]
        other = "any other output" if rec["readout"] == "argmax" else "other answer"
        lines += [f"{rec['model']} against {rec['task']} (one-layer GPT-2 with absolute positions, a table of {R} rows; "
                  f"BOS {rec['bos']}, letters {rec['letters']}, answer read at separator {rec['separator']}, answers "
                  f"{rec['answers']}); import check: max |torch - enclosure| {ck['max_abs_difference']:.3g} on "
                  f"{ck['samples']} inputs",
                  f"statement: every input $ x_1 .. x_n # of model length n + 2 <= {R} (starting at position 0) with "
                  f"{rec['margin_definition']} >= MU (ties excluded) has gap = logit(answer) - max logit({other}) > "
                  f"{d:.6g}; the model is undefined beyond its position table of {R} rows, and nothing is claimed "
                  "there"]
    re = rec["reached"]
    lines.append(f"margin {mu}: every word of 1..{rec['N0']} letters enumerated ({re['words']} in the statement; "
                 f"{R - 2} letters fill the table)")
    h = rec["horizon"]
    w = rec["witness"]
    if rec["verdict"] == "certified":
        v = (f"certified at margin {mu}: gap >= {rec['gap_lower']:.6g} > {d:.6g} on every input of model length "
             f"<= {R} (undefined beyond its position table of {R} rows)")
    elif rec["verdict"] == "fails":
        n = w["length"]
        v = (f"fails at margin {mu}: the shortest failing input has {n} letter{'s' * (n != 1)} (model length {h['X']}): "
             f"`{w['symbols']}` (token ids {w['ids']}; margin {w['margin']}, answer {w['answer']!r}) has gap <= "
             f"{w['gap_upper']:.6g} < {d:.6g} (torch forward: gap {w['torch_gap']}, predicts token "
             f"{w['torch_prediction']}); every shorter input has gap > {d:.6g} (H = {h['H']}, X = {h['X']}, exact)")
    else:
        H = h["H"]
        head = (f"gap > {d:.6g} on every input of model length <= {H} (H = {H} of {R})" if H >= FIRST_LENGTH
                else f"no model length certified (H = {H} of {R})")
        v = f"undetermined at margin {mu}: {head}; model lengths {H + 1}..{R} not decided: {re['why_not_further']}"
    lines += [f"verdict: {v}", f"time {rec['seconds']:.1f} s"]
    return "\n".join(lines)


def reports(records: list) -> str:
    """The text of several margins' certificates of one model (the header once)."""
    return "\n\n".join([report(records[0]), *(report(r, header=False) for r in records[1:])])


def run(args, given: set, form, tgt, vocab, common: dict, started: float | None = None) -> list:
    """The records of ``--model M --task NAME --margin MU[,MU...]`` for a model with an absolute table
    (``bounds.certify.gpt2_cli`` writes them): each margin certified on its own (a smaller margin's statement has
    more words, so its shortest failure may be shorter) within ``--time-budget`` seconds, the first margin's counting
    the command's start and loading."""
    import time

    from lengthgen_cli import UsageError

    if "max_boxes" in given:
        raise UsageError("--max-boxes: a model with an absolute position table is certified by enumerating its "
                         "inputs (no boxes); drop --max-boxes")
    spent = 0.0 if started is None else time.perf_counter() - started  # loading counts into the first margin's
    records = []
    for i, mu in enumerate(args.margin or [Fraction(0)]):
        deadline = Deadline(max(0.0, args.time_budget - spent) if i == 0 else args.time_budget)
        try:
            cert = certify_table_task(form, tgt, mu, float(args.logit_margin), args.readout,
                                      max_length=args.max_length, budget_s=args.time_budget, deadline=deadline,
                                      vocab=vocab)
        except ValueError as e:
            raise UsageError(str(e)) from None
        records.append({**cert.record(), **common})
    return records

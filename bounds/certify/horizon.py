"""The certified horizon of a pair: up to which length is ``|f - g| <= delta + eps`` on every input, and where does
it first fail?

Izzo et al. Theorem 4.1 asks whether agreement up to a training length implies agreement within eps at every
length; sec. 5 measures it by test loss at a few longer lengths.  For one concrete pair (:mod:`bounds.certify.search`)
this module answers the experimenter's question in two numbers:

* ``H``, the largest model length such that every input of every length ``first..H`` is within delta + eps,
  **certified**: the certified upper end of max ``|f - g|`` per length for the enumerated lengths (up to N0), and
  the branch-and-bound's certified bound over ranges of lengths ``N0 + 1 .. M`` beyond (``every_length`` when the
  bound over every length > N0 is within);
* ``X``, the **shortest** failing input found: an input (a string, or its class counts when long) whose certified
  lower end of ``|f - g|`` exceeds delta + eps.  The enumerated lengths are scanned in increasing order; beyond
  N0 the lengths between H and the shortest known failure are bisected (geometrically while they span more than a
  factor 2, then arithmetically), each probe a branch-and-bound over the range ``H + 1 .. M`` that stops at a
  certificate (``H := M``) or at a realized failure of length ``m <= M`` (``X := m``).

``H < X`` always; ``X = H + 1`` makes the horizon exact.  Lengths are model lengths (the input's symbols plus the
leading ``$``), as everywhere in :mod:`bounds.certify`; the empty input (model length 1) is never trained, so the
lengths start at 2 unless asked.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

#: the witness is written out as a string up to this many symbols; longer ones are given by their class counts
WITNESS_STRING_LIMIT = 10**5
#: a longer witness can still be written out by ``python -m bounds.certify --write-witness`` up to this many symbols
WITNESS_WRITE_LIMIT = 10**9
#: the enumeration is extended by the horizon up to max(EXTEND_FACTOR N0, EXTEND_MIN) (and 2/3 of its time budget)
EXTEND_FACTOR, EXTEND_MIN = 4, 64
#: probes of the bisection (each a branch-and-bound over a range of lengths)
MAX_PROBES = 200


@dataclass
class Horizon:
    """``H`` (``every_length``: no length fails or is undecided) and ``X`` (None: no failing input found) of the
    module docstring; ``x_value`` is the certified lower end of ``|f - g|`` at the witness, ``threshold`` the
    delta + eps it exceeds (the upper end of delta)."""

    first_length: int
    H: int
    every_length: bool
    X: int | None
    x_value: float | None
    witness: dict = field(default_factory=dict)  # {"length", "string" or None, "counts", "window"}
    probes: int = 0
    seconds: float = 0.0

    @property
    def exact(self) -> bool:
        return self.X is not None and self.X == self.H + 1

    def record(self) -> dict:
        return {"H": None if self.every_length else self.H, "every_length": self.every_length, "X": self.X,
                "X_minus_H": None if self.X is None else self.X - self.H, "exact": self.exact,
                "first_length": self.first_length, "x_value": self.x_value, "witness": self.witness,
                "probes": self.probes, "seconds": round(self.seconds, 3),
                "lengths": "model lengths: the input's symbols plus the leading $"}


def witness_of(prob, counts: dict, window, n: int) -> dict:
    """The witness at model length n: the string when it has at most WITNESS_STRING_LIMIT symbols, else None
    beside its class counts (class = token id * Delta + residue) and window (query last)."""
    from bounds.true_threshold import witness_string

    s = witness_string(counts, tuple(window), prob.delta, prob.ev.f.alphabet) if n - 1 <= WITNESS_STRING_LIMIT \
        else None
    return {"length": n, "string": s, "counts": {str(k): v for k, v in counts.items()},
            "window": [int(c) for c in window], "period": prob.delta, "alphabet": list(prob.ev.f.alphabet)}


def _probe(lo: int, up: int) -> int:
    """A length in ``lo + 1 .. up``: the geometric middle while ``up > 2 lo``, else the arithmetic one."""
    if up > 2 * lo + 2:
        m = math.isqrt(max(lo, 1) * up)
    else:
        m = (lo + up + 1) // 2
    return min(max(m, lo + 1), up)


def find_horizon(prob, rows: list, long, t_cert: float, t_fail: float, budget_s: float, first: int,
                 probe_range, top_length: int, shorter=None, extend=None, row_witness=None,
                 long_witness=None, proved: int | None = None) -> Horizon:
    """H and X of the module docstring from the enumerated ``rows`` (``first..N0``, certified [lower, upper] per
    length) and the branch-and-bound ``long`` over every length > N0 (:class:`bounds.certify.search.BnBResult`;
    None: nothing is claimed beyond N0); ``t_cert`` = delta + eps with delta's lower end (a length is within when
    its certified upper end is at most this), ``t_fail`` with delta's upper end (an input fails when its certified
    lower end exceeds this).  ``probe_range(lo, M, seconds)`` is the branch-and-bound over the lengths
    ``lo + 1 .. M`` stopping at a bound <= t_cert or a realized value > t_fail (a BnBResult); the probes share
    ``budget_s`` seconds and stay at most ``top_length``.  ``shorter(witness, lo)``, when given, looks for a
    shorter failure of length > lo from a failing input found beyond N0 (``(value, witness)`` or None: e.g. the
    input rescaled to shorter lengths), tried after every failure the branch-and-bound finds.  ``extend(n)``, when
    given, enumerates one more length exactly (a row, or None when the length is beyond the enumeration's limits):
    while H = N0 and no failure is known at a length <= N0, lengths N0 + 1, N0 + 2, ... up to
    max(EXTEND_FACTOR N0, EXTEND_MIN) are enumerated within 2/3 of the budget before any bisection, so a failure
    at a moderate length is found exactly.  ``row_witness(row)`` and ``long_witness(w)`` (a witness of a
    branch-and-bound result) write the witness record of another model family (default: the package's form,
    ``prob`` a :class:`bounds.certify.search.Problem`; ``long_witness`` must give the record's ``length``).
    ``proved``: ``long`` certified every length N0 + 1 .. proved already (the lengths its open boxes leave out):
    they extend H when every length up to N0 is within, and are not searched again."""
    t0 = time.perf_counter()
    if row_witness is None:
        def row_witness(r):
            return {"length": r.length, "string": r.witness, "counts": {}, "window": [], "period": prob.delta,
                    "alphabet": list(prob.ev.f.alphabet)}
    if long_witness is None:
        def long_witness(w):
            return witness_of(prob, *w)
    H = first - 1
    for r in rows:
        if r.upper > t_cert:
            break
        H = r.length
    X = x_value = None
    witness: dict = {}
    for r in rows:
        if r.lower > t_fail:
            X, x_value = r.length, r.lower
            witness = row_witness(r)
            break
    every = False

    def found(value: float, w: tuple, lo: int):
        """A failure found beyond N0 (the best so far), then a shorter one from it when ``shorter`` finds it."""
        if shorter is not None:
            better = shorter(w, lo)
            if better is not None:
                value, w = better
        record = long_witness(w)
        return record["length"], value, record

    N0 = rows[-1].length if rows else first - 1
    if X is None and long is not None and long.witness is not None and long.lower > t_fail:
        X, x_value, witness = found(long.lower, long.witness, N0)
    if X is None and H == N0 and long is not None and long.upper <= t_cert:
        every = True
    probes = 0
    if every or long is None or (X is not None and X <= N0):
        return Horizon(first, H, every, X, x_value, witness, probes, time.perf_counter() - t0)
    cleared = N0
    if proved is not None and proved > N0:
        cleared = min(proved, top_length) if X is None else min(proved, X - 1)
        if H == N0:
            H = cleared
    while extend is not None and H == cleared and (X is None or cleared + 1 < X) \
            and cleared < max(EXTEND_FACTOR * N0, EXTEND_MIN) and time.perf_counter() - t0 < 2 * budget_s / 3:
        r = extend(cleared + 1)
        if r is None:
            break
        cleared = r.length
        if r.lower > t_fail:
            X, x_value = r.length, r.lower
            witness = row_witness(r)
            break
        if r.upper > t_cert:
            break
        H = r.length
    # beyond: bisect between the lengths cleared (certified, or searched without a failure) and the shortest
    # failure; only a certified range extends H
    top = (X - 1) if X is not None else top_length
    while probes < MAX_PROBES and cleared < top:
        left = budget_s - (time.perf_counter() - t0)
        if left <= 0:
            break
        M = _probe(cleared, top)
        res = probe_range(cleared, M, max(left / 3, min(left, 0.05)))
        probes += 1
        if res.witness is not None and res.lower > t_fail:
            X, x_value, witness = found(res.lower, res.witness, cleared)
            top = X - 1
        elif res.upper <= t_cert:
            if H == cleared:
                H = M
            cleared = M
        elif M == cleared + 1:
            break  # the next length is undecided within the budget
        else:
            top = M - 1
    return Horizon(first, H, False, X, x_value, witness, probes, time.perf_counter() - t0)


def _ratio(H: int, train_length: int | None) -> str:
    return f" = {H / train_length:.3g} x the training length {train_length}" if train_length else ""


def horizon_line(rec: dict) -> str:
    """The certified horizon in an experimenter's words (:mod:`bounds.certify.horizon`): up to which length every
    input is within delta + eps (a pair), or every input of margin >= MU has gap > D (a model against its task,
    :mod:`bounds.certify.gpt2_task`: the record has ``logit_margin``), and the shortest failing input (the string,
    or its class counts when long)."""
    h = rec["horizon"]
    if "logit_margin" in rec:
        D = f"D = {rec['logit_margin']:.6g}"
        within, scope = f"gap > {D}", f"margin >= {rec['margin']}, "
        lead = f"{within} on every input of margin >= {rec['margin']} and"
        outside = f"{within} not certified on the inputs of margin >= {rec['margin']}"
    else:
        d = rec["delta"]
        within, scope = f"within delta + eps = {d[0] + rec['eps']:.6g}", ""
        lead = f"{within} on every input of"
        outside = f"not within delta + eps = {d[1] + rec['eps']:.6g}"
    if h["every_length"]:
        return f"{within} at every length (every input of {scope}model length >= {h['first_length']}, certified)"
    H = h["H"]
    if H >= h["first_length"]:
        head = (f"{lead} model length {h['first_length']}..{H} "
                f"(H = {H}{_ratio(H, rec.get('train_length'))}, certified)")
    else:
        head = f"{outside} from the first length {h['first_length']} on"
    R = rec.get("defined_up_to")  # the model reads at most R positions (an absolute position table)
    if h["X"] is None and R is not None:
        rest = f"lengths {H + 1}..{R} not enumerated; " if H < R else ""
        return head + f"; no failing input found ({rest}undefined beyond its position table of {R} rows)"
    if h["X"] is None:
        return head + "; no failing input found (longer lengths undecided within the time budget)"
    w = h["witness"]
    if w.get("description"):  # another model family's words for its input (a GPT-2's token ids)
        wtxt = w["description"]
    elif w["string"] is not None:
        wtxt = repr(w["string"])
    else:
        wtxt = (f"the input with class counts {w['counts']} and window {w['window']} (class = token id * Delta + "
                f"residue; {write_out(h['X'], WRITE_COMMAND)})")
    gap = "exact: X = H + 1" if h["exact"] else f"X - H = {h['X_minus_H']}"
    if "logit_margin" in rec:
        value = (f"margin {w['margin']}, answer {w['answer']!r}: gap <= {h['gap_upper']:.6g} < {D}; "
                 f"torch gap {w['torch_gap']}")
    else:
        value = f"|f - g| >= {h['x_value']:.6g} > delta + eps = {d[1] + rec['eps']:.6g}"
    return f"{head}; first failure at length {h['X']}: {wtxt} ({value}; {gap})"


WRITE_COMMAND = "rerun with --json > cert.json, then python -m bounds.certify --write-witness cert.json --out FILE"


def write_out(length: int, command: str) -> str:
    """How a failing input of model length ``length`` given by class counts is had: ``command`` writes it, up to
    WITNESS_WRITE_LIMIT symbols; above (where --write-witness refuses) its class counts are all there is."""
    if length - 1 > WITNESS_WRITE_LIMIT:
        return f"too long to write out: over WITNESS_WRITE_LIMIT = {WITNESS_WRITE_LIMIT} symbols"
    return f"to write it out: {command}"

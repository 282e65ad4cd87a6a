"""Limit Transformers without Periodic or Local (Huang et al. App. A, FAQ 7; Definition 3; Theorem 7's proof).

Two parts, both built with the library's :class:`~constructions.limit_transformer.LimitTransformer` and
evaluated only by the library's evaluators (``exact_forward`` for exact checks, the float64 ``forward``
for fast exhaustive sweeps with a rigorous separation tolerance):

1. **Necessity witnesses.**  For every N, :func:`nonperiodic_pair` and :func:`nonlocal_pair` return two
   models that agree (every output position) on every string of at most N symbols and disagree on a
   string of N + 1 symbols.  The first pair differs only in a non-periodic positional encoding
   ``p_i = [i > N + 1] e``; the second only in a translation-invariant but non-local
   ``phi(j, i) = [i - j >= N + 1]``.  Neither difference is visible below length N + 1, so no finite amount
   of training data of bounded length separates them: FAQ 7's reason why Periodic and Local are needed.

2. **The converse on a finite family.**  :func:`periodic_local_family` enumerates one-layer, one-head,
   attention-only Limit Transformers with period Delta, locality tau and integer logit parameters from a
   grid.  :func:`agreement_length` computes a length N0 (in symbols) such that any two members agreeing on
   all strings of <= N0 symbols agree on all strings (proof in ``docs/counterexamples_capacity.md``: the
   output is a ratio of polynomials in the key counts and in n; agreement on a product grid of admissible
   inputs forces the cross-multiplied difference to vanish identically).  :func:`search_family` tests it
   exhaustively: it refines the partition of the family by exact-output equality length by length up to
   a larger tested length and reports every pair separated only after N0 (there must be none unless a
   non-periodic or non-local member was added, the negative control).
"""

from __future__ import annotations

import itertools
import json
import random
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from constructions.limit_transformer import (
    ArbitraryPhi,
    ArbitraryPositions,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
)
from constructions.limit_transformer.evaluate import forward
from constructions.limit_transformer.exact import exact_forward
from lengthgen_cli import (
    Parser,
    UsageError,
    add_json_option,
    add_output_options,
    add_period_option,
    bounded_int,
    check_output,
    command,
    int_list,
    progress,
    usage_errors,
)

ALPHABET = ("a", "b")


class FamilyError(ValueError):
    """A family specification is out of range (grid not non-negative integers, Delta < 1, tau < 0, ...)."""


# ------------------------------------------------------------------------------------- enumeration
def strings_of_length(n: int, alphabet=ALPHABET) -> list[str]:
    """All strings of exactly n (single-character) symbols, in lexicographic order."""
    return ["".join(t) for t in itertools.product(alphabet, repeat=n)]


def first_exact_disagreement(m1: LimitTransformer, m2: LimitTransformer, max_symbols: int,
                             min_symbols: int = 0):
    """Exhaustive exact comparison: the first (string, position) on which the outputs differ, or None.

    Every string of ``min_symbols..max_symbols`` symbols over the models' alphabet is evaluated with
    :func:`exact_forward` (Fractions); position is 1-based with ``$`` at position 1.
    """
    if m1.alphabet != m2.alphabet:
        raise FamilyError(f"models have different alphabets {m1.alphabet} and {m2.alphabet}")
    for n in range(min_symbols, max_symbols + 1):
        for s in strings_of_length(n, m1.alphabet):
            o1, o2 = exact_forward(m1, s), exact_forward(m2, s)
            for i in range(o1.shape[0]):
                if any(a != b for a, b in zip(o1[i], o2[i], strict=True)):
                    return s, i + 1
    return None


def exact_outputs_differ(m1: LimitTransformer, m2: LimitTransformer, string) -> bool:
    """Whether the exact outputs of the two models differ at some position of ``string``."""
    o1, o2 = exact_forward(m1, string), exact_forward(m2, string)
    return bool(np.any(o1 != o2))


# ------------------------------------------------------------------------- necessity witness pairs
def _check_n(N: int) -> None:
    if not isinstance(N, int) or N < 0:
        raise FamilyError(f"N must be a non-negative integer, got {N!r}")


def nonperiodic_pair(N: int) -> tuple[LimitTransformer, LimitTransformer]:
    """Two models equal on all strings of <= N symbols, different on every string of N + 1 symbols.

    Coordinates ``[is_$, is_a, bump, acc]``; one head with zero query/key (uniform attention) whose value
    writes ``is_a + bump`` into ``acc``; output ``acc``.  Model A has periodic (zero) encodings; model B has
    ``p_i = [i > N + 1] e_bump`` (a function of the position, not periodic for any period).  On strings of
    <= N symbols (positions <= N + 1) the encodings coincide, so every activation does.
    """
    _check_n(N)
    emb = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]]
    value = [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 1, 0]]
    head = Head(query=[[0, 0, 0, 0]], key=[[0, 0, 0, 0]], value=value)
    common = dict(alphabet=ALPHABET, embedding=emb, layers=[Layer(heads=[head])],
                  unembedding=[[0, 0, 0, 1]], precision="huang", precision_bits=8)
    a = LimitTransformer(positions=PeriodicPositions([[0, 0, 0, 0]]), name=f"nonperiodic-A(N={N})", **common)
    b = LimitTransformer(positions=ArbitraryPositions(lambda i: [0, 0, 1 if i > N + 1 else 0, 0], d=4),
                         name=f"nonperiodic-B(N={N})", **common)
    return a, b


def nonlocal_pair(N: int, weight: int = 1) -> tuple[LimitTransformer, LimitTransformer]:
    """Two models equal on all strings of <= N symbols, different on ``a^(N+1)``.

    Coordinates ``[is_$, is_a, acc]``; one head, zero query/key; value writes ``is_a`` into ``acc``.
    Model A has no phi (uniform attention); model B has the translation-invariant, non-local
    ``phi(j, i) = weight * [i - j >= N + 1]``.  Offsets >= N + 1 only occur at positions >= N + 2.
    """
    _check_n(N)
    if not isinstance(weight, int) or weight < 1:
        raise FamilyError(f"weight must be a positive integer, got {weight!r}")
    emb = [[1, 0, 0], [0, 1, 0], [0, 0, 0]]
    value = [[0, 0, 0], [0, 0, 0], [0, 1, 0]]
    common = dict(alphabet=ALPHABET, embedding=emb, unembedding=[[0, 0, 1]], precision="huang", precision_bits=8)
    head_a = Head(query=[[0, 0, 0]], key=[[0, 0, 0]], value=value)
    head_b = Head(query=[[0, 0, 0]], key=[[0, 0, 0]], value=value,
                  phi=ArbitraryPhi(lambda j, i: weight if i - j >= N + 1 else 0))
    a = LimitTransformer(layers=[Layer(heads=[head_a])], name=f"nonlocal-A(N={N})", **common)
    b = LimitTransformer(layers=[Layer(heads=[head_b])], name=f"nonlocal-B(N={N})", **common)
    return a, b


@dataclass
class PairCheck:
    """Result of :func:`check_pair`: exhaustive agreement up to N symbols and a disagreement beyond."""

    N: int
    strings_checked: int
    agree_up_to_N: bool
    first_disagreement_up_to_N: tuple | None
    witness: str
    witness_differs: bool
    witness_outputs: tuple


def check_pair(m1: LimitTransformer, m2: LimitTransformer, N: int, witness: str | None = None) -> PairCheck:
    """Exact exhaustive check: agreement on all strings of <= N symbols, disagreement on ``witness``.

    ``witness`` defaults to ``a^(N+1)``.  Both checks use :func:`exact_forward` (Fractions).
    """
    _check_n(N)
    witness = "a" * (N + 1) if witness is None else witness
    first = first_exact_disagreement(m1, m2, N)
    count = sum(len(m1.alphabet) ** n for n in range(N + 1))
    o1, o2 = exact_forward(m1, witness), exact_forward(m2, witness)
    return PairCheck(N, count, first is None, first, witness, bool(np.any(o1 != o2)),
                     (tuple(o1[-1]), tuple(o2[-1])))


# --------------------------------------------------------------------------- the finite family
@dataclass(frozen=True)
class FamilySpec:
    """One-layer, one-head, attention-only Periodic and Local Limit Transformers over {a, b}.

    Logit of key j for query i: ``s(token_j) + r((j - 1) mod Delta) + g(i - j)`` with ``g`` tau-local
    (a :class:`LocalPhi`) and s, r, g ranging over ``grid`` (non-negative integers, so under the
    ``huang`` precision model every attention weight is the exact rational ``n^a / sum n^a``).  The value
    writes ``[token_j = a]`` into the output coordinate; the output is that coordinate.
    """

    delta: int = 1
    tau: int = 1
    grid: tuple = (0, 1)
    phi_grid: tuple | None = None  # values of g(0..tau); defaults to ``grid``

    def __post_init__(self):
        if not isinstance(self.delta, int) or self.delta < 1:
            raise FamilyError(f"Delta must be a positive integer, got {self.delta!r}")
        if not isinstance(self.tau, int) or self.tau < 0:
            raise FamilyError(f"tau must be a non-negative integer, got {self.tau!r}")
        if not self.grid or any(not isinstance(v, int) or v < 0 for v in self.grid):
            raise FamilyError(f"grid must be non-empty non-negative integers, got {self.grid!r}")
        object.__setattr__(self, "grid", tuple(sorted(set(self.grid))))
        pg = self.grid if self.phi_grid is None else self.phi_grid
        if not pg or any(not isinstance(v, int) or v < 0 for v in pg):
            raise FamilyError(f"phi_grid must be non-empty non-negative integers, got {self.phi_grid!r}")
        object.__setattr__(self, "phi_grid", tuple(sorted(set(pg))))

    @property
    def max_logit(self) -> int:
        """A: the largest logit any member (without mutants) can produce."""
        g = max(self.grid)
        return g * (1 + (1 if self.delta > 1 else 0)) + max(self.phi_grid)

    @property
    def size(self) -> int:
        k = len(self.grid)
        return k ** (len(ALPHABET) + 1) * (k ** self.delta if self.delta > 1 else 1) * len(self.phi_grid) ** (self.tau + 1)


def _width(spec: FamilySpec) -> int:
    # [is_$, is_a, is_b, const, acc, extra, class_0..class_{Delta-1}]
    return 6 + spec.delta


def family_member(spec: FamilySpec, s: tuple, r: tuple, g: tuple, *, positions=None, phi=None,
                  name: str = "") -> LimitTransformer:
    """The member with token scores ``s = (s_$, s_a, s_b)``, class scores ``r`` and local phi ``g``.

    ``positions`` / ``phi`` override the periodic table / local phi (for negative-control mutants).
    """
    d = _width(spec)
    emb = np.zeros((3, d), dtype=int)
    for t in range(3):
        emb[t, t] = 1
        emb[t, 3] = 1
    table = np.zeros((spec.delta, d), dtype=int)
    for c in range(spec.delta):
        table[c, 6 + c] = 1
    query = np.zeros((1, d), dtype=int)
    query[0, 3] = 1
    key = np.zeros((1, d), dtype=int)
    key[0, :3] = s
    key[0, 5] = 1  # 'extra' coordinate: zero in every member, set by the non-periodic mutant
    key[0, 6:] = r
    value = np.zeros((d, d), dtype=int)
    value[4, 1] = 1
    unemb = np.zeros((1, d), dtype=int)
    unemb[0, 4] = 1
    head = Head(query=query, key=key, value=value, phi=phi if phi is not None else LocalPhi(tuple(g)))
    return LimitTransformer(alphabet=ALPHABET, embedding=emb, layers=[Layer(heads=[head])], unembedding=unemb,
                            positions=positions if positions is not None else PeriodicPositions(table),
                            precision="huang", precision_bits=8, name=name or f"s={s} r={r} g={g}",
                            metadata={"s": s, "r": r, "g": g})


def periodic_local_family(spec: FamilySpec) -> list[LimitTransformer]:
    """Every member of the family (``spec.size`` models, all Periodic and Local)."""
    grid = spec.grid
    rs = list(itertools.product(grid, repeat=spec.delta)) if spec.delta > 1 else [(0,)]
    out = []
    for s in itertools.product(grid, repeat=3):
        for r in rs:
            for g in itertools.product(spec.phi_grid, repeat=spec.tau + 1):
                out.append(family_member(spec, s, r, g))
    return out


def nonperiodic_mutant(spec: FamilySpec, start: int) -> LimitTransformer:
    """Negative control: the uniform member with key bonus +1 at every position >= ``start`` (not Periodic)."""
    d = _width(spec)
    zero = (0,) * 3
    r = (0,) * spec.delta if spec.delta > 1 else (0,)
    base = family_member(spec, zero, r, (0,) * (spec.tau + 1))
    table = base.positions.table

    def pos(i: int):
        v = list(table[(i - 1) % spec.delta])
        v[5] = Fraction(1 if i >= start else 0)
        return v

    return family_member(spec, zero, r, (0,) * (spec.tau + 1), positions=ArbitraryPositions(pos, d=d),
                         name=f"MUTANT non-periodic (bonus at positions >= {start})")


def nonlocal_mutant(spec: FamilySpec, reach: int) -> LimitTransformer:
    """Negative control: the uniform member with ``phi(j, i) = [i - j >= reach]`` (translation-invariant, not local)."""
    zero = (0,) * 3
    r = (0,) * spec.delta if spec.delta > 1 else (0,)
    return family_member(spec, zero, r, (0,) * (spec.tau + 1),
                         phi=ArbitraryPhi(lambda j, i: 1 if i - j >= reach else 0),
                         name=f"MUTANT non-local (phi = [i - j >= {reach}])")


# ---------------------------------------------------------------------------- the computed length
def _class_counts(i: int, spec: FamilySpec) -> list[int]:
    """M_c(i): non-local symbol positions j in [2, i - tau - 1] with (j - 1) mod Delta = c."""
    counts = [0] * spec.delta
    for j in range(2, i - spec.tau):
        counts[(j - 1) % spec.delta] += 1
    return counts


def agreement_length(spec: FamilySpec) -> dict:
    """The computed length: two members agreeing on all strings of <= ``N0`` symbols agree everywhere.

    For query positions i >= tau + 2 and a fixed residue of i mod Delta and window (the tau + 1 tokens
    ending at i), the output is Num/Den with Num, Den linear in the key counts N_{t,c} (token t, class c,
    non-local) and polynomials of degree <= A in n.  The cross-multiplied difference has degree <= 2 in each
    free count, <= 2 in q (i = i_r + Delta q) and <= 2A in n, so (Combinatorial Nullstellensatz, grid form)
    it vanishes identically once it vanishes on {0,1,2}^free x {q0, q0+1, q0+2} x {n_lo..n_lo+2A}; every
    such grid point is an input of length <= n_hi = n_lo + 2A.  Query positions i <= tau + 1 depend on n
    only, with degree <= 2A, covered by n <= tau + 1 + 2A <= n_hi.  Returns N0 = n_hi - 1 symbols and
    the pieces of the computation.
    """
    free = len(ALPHABET) - 1
    need = 2 * free
    i_min = spec.tau + 2
    tops = []
    for i_r in range(i_min, i_min + spec.delta):
        q = 0
        while min(_class_counts(i_r + spec.delta * q, spec)) < need:
            q += 1
        tops.append(i_r + spec.delta * (q + 2))
    n_lo = max(max(tops), spec.tau + 1)
    a = spec.max_logit
    n_hi = n_lo + 2 * a
    return {"N0": n_hi - 1, "n_hi": n_hi, "n_lo": n_lo, "max_logit": a, "degree_n": 2 * a,
            "free_counts": free * spec.delta, "residue_tops": tops}


# ------------------------------------------------------------------------------ exhaustive search
def separation_tolerance(n: int, max_logit: int) -> float:
    """Half the least gap between two distinct outputs at model length n (|x| = n, including ``$``).

    Every output is Num/Den with integers 0 <= Num <= Den <= n * n^A, so two distinct outputs differ by at
    least 1/(n^(A+1))^2.  float64 evaluation errors are ~1e-15 here; the search refuses lengths where
    this tolerance falls below 1e-12 (use the exact path there).
    """
    tol = 0.5 / float(n ** (max_logit + 1)) ** 2
    if tol < 1e-12:
        raise FamilyError(f"at |x| = {n} with logits up to {max_logit} distinct outputs may be closer than 2e-12; "
                          f"float64 cannot separate them reliably")
    return tol


@dataclass
class SearchResult:
    """Outcome of :func:`search_family` (lengths in symbols, i.e. without ``$``)."""

    spec: FamilySpec
    family_size: int
    N0: int
    tested: int
    classes_at_N0: int
    classes_at_tested: int
    max_first_disagreement: int
    late_splits: list = field(default_factory=list)
    random_checks: int = 0
    random_failures: list = field(default_factory=list)
    seconds: float = 0.0
    strings_per_model: int = 0

    @property
    def converse_holds(self) -> bool:
        return not self.late_splits and not self.random_failures

    def as_dict(self) -> dict:
        return {"period": self.spec.delta, "tau": self.spec.tau, "grid": list(self.spec.grid),
                "phi_grid": list(self.spec.phi_grid),
                "family_size": self.family_size, "N0": self.N0, "tested": self.tested,
                "strings_per_model": self.strings_per_model, "classes_at_N0": self.classes_at_N0,
                "classes_at_tested": self.classes_at_tested, "max_first_disagreement": self.max_first_disagreement,
                "late_splits": self.late_splits, "random_checks": self.random_checks,
                "random_failures": self.random_failures, "converse_holds": self.converse_holds,
                "seconds": round(self.seconds, 3)}


def _load_checkpoint(path: str | None, key: dict) -> dict | None:
    """The sweep state saved by :func:`_save_checkpoint` for the same family, or None if there is none."""
    if path is None:
        return None
    try:
        with open(path) as fh:
            state = json.load(fh)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:  # not JSON, not UTF-8 text
        raise FamilyError(f"cannot read checkpoint {path}: {e}") from e
    except RecursionError:
        raise FamilyError(f"checkpoint {path} is nested too deeply to be read") from None
    if not isinstance(state, dict) or state.get("key") != key:
        raise FamilyError(f"checkpoint {path} belongs to another family or N0; delete it or use another file")
    return state


def _save_checkpoint(path: str | None, state: dict) -> None:
    """Write the sweep state after a finished length, atomically (an interrupt loses at most that length)."""
    if path is None:
        return
    from lengthgen_cli.output import write_atomic

    write_atomic(path, state, what="--out")


def search_family(spec: FamilySpec, tested: int, *, extra_members=(), random_strings: int = 0,
                  random_max: int = 40, seed: int = 0, n0: int | None = None,
                  checkpoint: str | None = None, step=None) -> SearchResult:
    """Refine the family by output equality on all strings of 0..``tested`` symbols; report late splits.

    A split at a length L > N0 between two members that agreed on every shorter string is a pair that
    agrees up to N0 and disagrees beyond: it must not happen for Periodic and Local members.  Every split
    witness is re-checked with :func:`exact_forward`.  ``random_strings`` further exact comparisons of each
    member with its class representative on random strings of max(N0, tested)+1..``random_max`` symbols.
    With ``checkpoint`` the state is saved after every length and a rerun resumes after the last saved one.
    ``step(L)`` (progress display) is called after every finished length L.
    """
    t0 = time.perf_counter()
    info = agreement_length(spec)
    N0 = info["N0"] if n0 is None else n0
    if tested < N0:
        raise FamilyError(f"tested length {tested} must be >= the computed length N0 = {N0}")
    members = periodic_local_family(spec) + list(extra_members)
    max_logit = spec.max_logit + (1 if extra_members else 0)
    classes = [list(range(len(members)))]
    split_len = {}  # (a, b) -> length in symbols at which they were separated
    late, n_strings, first = [], 0, 0
    key = {"spec": [spec.delta, spec.tau, list(spec.grid), list(spec.phi_grid)], "N0": N0,
           "members": [m.name for m in members]}
    state = _load_checkpoint(checkpoint, key)
    if state is not None:
        classes, late, n_strings, first = state["classes"], state["late"], state["n_strings"], state["done"] + 1
        split_len = {tuple(map(int, k.split(","))): v for k, v in state["split_len"].items()}
        classes_at_n0 = state.get("classes_at_n0")
    for L in range(first, tested + 1):
        batch = strings_of_length(L)
        n_strings += len(batch)
        tol = separation_tolerance(L + 1, max_logit)
        outs = {}
        new_classes = []
        for cls in classes:
            if len(cls) == 1:  # a singleton class cannot split: nothing to evaluate
                new_classes.append(cls)
                continue
            groups: list[list[int]] = []
            reps: list[np.ndarray] = []
            for k in cls:
                if k not in outs:
                    outs[k] = forward(members[k], batch)[..., 0]
                for gi, rep in enumerate(reps):
                    if np.max(np.abs(outs[k] - rep)) <= tol:
                        groups[gi].append(k)
                        break
                else:
                    groups.append([k])
                    reps.append(outs[k])
            if len(groups) > 1:
                for g1, g2 in itertools.combinations(range(len(groups)), 2):
                    for a in groups[g1]:
                        for b in groups[g2]:
                            split_len[(min(a, b), max(a, b))] = L
                if L > N0:
                    for g1, g2 in itertools.combinations(range(len(groups)), 2):
                        a, b = groups[g1][0], groups[g2][0]
                        diff = np.abs(outs[a] - outs[b])
                        wit = batch[int(np.argmax(diff.max(axis=1)))]
                        late.append({"members": [members[a].name, members[b].name], "length": L, "witness": wit,
                                     "exact_recheck": exact_outputs_differ(members[a], members[b], wit)})
            new_classes.extend(groups)
        classes = new_classes
        if L == N0:
            classes_at_n0 = len(classes)
        _save_checkpoint(checkpoint, {"key": key, "done": L, "classes": classes, "late": late,
                                      "n_strings": n_strings, "classes_at_n0": classes_at_n0 if L >= N0 else None,
                                      "split_len": {f"{a},{b}": v for (a, b), v in split_len.items()}})
        if step is not None:
            step(L)
    rng = random.Random(seed)
    failures, checks = [], 0
    for _ in range(random_strings):
        length = rng.randint(max(N0, tested) + 1, random_max)
        s = "".join(rng.choice(ALPHABET) for _ in range(length))
        for cls in classes:
            rep = exact_forward(members[cls[0]], s)
            for k in cls[1:]:
                checks += 1
                if np.any(exact_forward(members[k], s) != rep):
                    failures.append({"members": [members[cls[0]].name, members[k].name], "witness": s})
    return SearchResult(spec, len(members), N0, tested, classes_at_n0, len(classes),
                        max(split_len.values(), default=0), late, checks, failures,
                        time.perf_counter() - t0, n_strings)


# -------------------------------------------------------------------------------------------- CLI
# Sizes beyond these are refused before any work: every string of up to MAX_TESTED symbols is evaluated in one
# float64 batch per length (2^18 strings: seconds to minutes, ~0.3 GB), the family is built in memory, and the
# random strings are evaluated exactly (Fractions, superlinear in the length).
MAX_PERIOD = 8
MAX_TAU = 8
MAX_FAMILY = 4096
MAX_TESTED = 18
MAX_RANDOM = 10_000
MAX_RANDOM_LENGTH = 200


def _limit(name: str) -> str:
    return f"counterexamples.periodic_local.{name} = {globals()[name]}"


def build_parser() -> Parser:
    p = Parser(module="counterexamples.periodic_local",
               description="Exhaustive Periodic/Local converse check over a finite family "
                           "(docs/counterexamples_capacity.md).")
    add_period_option(p, high=MAX_PERIOD, limit_name="counterexamples.periodic_local.MAX_PERIOD", help="period Delta of the members' positional encodings")
    p.add_argument("--tau", type=bounded_int(0, MAX_TAU, _limit("MAX_TAU")), default=1,
                   help="locality tau of the members' phi (default 1)")
    p.add_argument("--grid", type=int_list(0, 10**6), default=[0, 1], metavar="INTS",
                   help="logit values of the token and class scores, comma-separated non-negative integers "
                        "(default 0,1)")
    p.add_argument("--phi-grid", type=int_list(0, 10**6), default=None, metavar="INTS",
                   help="values of the local phi (default: --grid)")
    p.add_argument("--extra", type=bounded_int(0, MAX_TESTED, _limit("MAX_TESTED")), default=2,
                   help="tested length = N0 + extra symbols (default 2)")
    p.add_argument("--random", type=bounded_int(0, MAX_RANDOM, _limit("MAX_RANDOM")), default=0,
                   help="random long strings on which each member is compared exactly with its class (default 0)")
    p.add_argument("--random-max", type=bounded_int(1, MAX_RANDOM_LENGTH, _limit("MAX_RANDOM_LENGTH")),
                   default=40, help="longest random string, in symbols (default 40)")
    p.add_argument("--mutants", action="store_true", help="add the non-periodic and non-local negative controls")
    add_json_option(p)
    add_output_options(p, kind="json", what="the sweep's state after every length and, at the end, the result")
    return p


def _is_checkpoint(data) -> bool:
    return isinstance(data, dict) and {"key", "done", "classes"} <= set(data)


@command
def main(argv=None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    with usage_errors(p, FamilyError):
        spec = FamilySpec(args.period, args.tau, tuple(args.grid), None if args.phi_grid is None else tuple(args.phi_grid))
        if spec.size > MAX_FAMILY:
            raise UsageError(f"the family has {spec.size} members, beyond the limit {_limit('MAX_FAMILY')}")
        info = agreement_length(spec)
        tested = info["N0"] + args.extra
        if tested > MAX_TESTED:
            raise UsageError(f"tested length N0 + extra = {info['N0']} + {args.extra} = {tested} symbols is beyond "
                             f"the limit {_limit('MAX_TESTED')} (2^L strings per length)")
        separation_tolerance(tested + 1, spec.max_logit + (1 if args.mutants else 0))
        if args.random and args.random_max <= tested:
            raise UsageError(f"--random-max must exceed the tested length {tested}")
        check_output(args.out, kind="json", resume=args.resume, recognise=_is_checkpoint)
        extra = [nonperiodic_mutant(spec, info["n_hi"] + 1), nonlocal_mutant(spec, info["n_hi"])] if args.mutants else []
        with progress(total=tested + 1, desc=f"Delta={spec.delta} tau={spec.tau}: lengths", unit="length") as bar:
            res = search_family(spec, tested, extra_members=extra, random_strings=args.random,
                                random_max=args.random_max, checkpoint=args.out,
                                step=lambda L: (bar.update(L + 1 - bar.n)))
    d = res.as_dict()
    if args.out is not None:
        with open(args.out) as fh:
            state = json.load(fh)
        _save_checkpoint(args.out, {**state, "result": d})
    if args.json:
        print(json.dumps(d))
    else:
        for k, v in d.items():
            print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

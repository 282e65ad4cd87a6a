"""Golowich et al. §5 synthetic tasks: sparse parity (App. E.1.1, eq. (20)) and parity with scratchpad (App. E.2.1).

**Sparse parity** ``D^sp_{l,k}``: ``<BOS> J_1 t_{b_1} ... J_l t_{b_l} <SEP> t_{b*}`` with ``J_i in [N]``, exactly
``k`` of them ``<= N/2`` ("marked"), bits ``b_i`` uniform and ``b* = XOR of b_i over marked i``.  The paper
leaves these sampling conditions implicit; :func:`sparse_parity` fixes them:

1. ``N`` is even and ``>= 2`` (so ``N/2`` is an integer and both halves are non-empty);
2. ``1 <= k < l`` (the paper's "k < l");
3. "uniform subject to exactly k values <= N/2" is drawn as: a uniform k-subset of ``[l]`` is marked, marked
   ``J`` uniform on ``{1..N/2}``, unmarked uniform on ``{N/2+1..N}`` (this *is* the conditional uniform law);
4. training draws ``k ~ Unif{1..K_train}`` first, then ``l`` uniform among the lengths with ``2l`` in the
   range *and* ``l > k`` (:func:`training_lengths`): for ``k`` near ``K_train`` short lengths are excluded.

The label is the last token; the planted set (Golowich Def. 3.2) is the ``2k`` tokens ``J_i, t_{b_i}`` of the
marked pairs (:func:`planted_positions`).

**Parity with scratchpad and jumps** (§5.2.1, App. E.2.1): ``<BOS> b_1..b_l <SEP> b'_1..b'_{l/j}`` with
``b'_i = XOR of b_1..b_{j i}``; ``j = 1`` is the standard scratchpad.  Condition made explicit: ``j`` divides
``l`` (so the last scratchpad bit is the answer).  Coupled position ids: ``0, ceil(1/j), .., ceil(l/j)`` for
``<BOS>`` and the input (each id repeated ``j`` times), then ``0, 1, .., l/j`` for ``<SEP>`` and the scratchpad.
"""

from __future__ import annotations

from dataclasses import dataclass

from constructions.tasks.errors import TaskError

BOS, SEP = "<BOS>", "<SEP>"
BITS = ("t0", "t1")


@dataclass(frozen=True)
class SparseParityExample:
    tokens: tuple[str, ...]
    marked: tuple[int, ...]  # the marked pair indices i (1-based)
    label: str


def sparse_parity(ell: int, k: int, N: int, rng) -> SparseParityExample:
    """One draw of ``D^sp_{ell,k}`` over ``[N]`` (conditions 1-3 of the module docstring)."""
    if N < 2 or N % 2:
        raise TaskError(f"N must be even and >= 2, not {N}")
    if not 1 <= k < ell:
        raise TaskError(f"need 1 <= k < ell, got k = {k}, ell = {ell}")
    marked = sorted(int(i) + 1 for i in rng.choice(ell, size=k, replace=False))
    mset = set(marked)
    tokens, parity = [BOS], 0
    for i in range(1, ell + 1):
        lo, hi = (1, N // 2) if i in mset else (N // 2 + 1, N)
        bit = int(rng.integers(0, 2))
        tokens += [str(int(rng.integers(lo, hi + 1))), BITS[bit]]
        parity ^= bit if i in mset else 0
    tokens.append(SEP)
    return SparseParityExample(tuple(tokens), tuple(marked), BITS[parity])


def sparse_parity_vocab(N: int) -> list[str]:
    return [BOS, SEP, *BITS, *(str(j) for j in range(1, N + 1))]


def planted_positions(ex: SparseParityExample) -> tuple[int, ...]:
    """Token positions (1-based, ``<BOS>`` = 1) of the planted set: each marked ``J_i`` and its bit."""
    return tuple(p for i in ex.marked for p in (2 * i, 2 * i + 1))


def training_lengths(k: int, lo: int, hi: int) -> list[int]:
    """The ``l`` with ``lo <= 2l <= hi`` and ``l > k`` (condition 4)."""
    out = [ell for ell in range((lo + 1) // 2, hi // 2 + 1) if ell > k]
    if not out:
        raise TaskError(f"no length l with {lo} <= 2l <= {hi} exceeds k = {k}")
    return out


@dataclass(frozen=True)
class ScratchpadExample:
    tokens: tuple[str, ...]
    coupled_ids: tuple[int, ...]
    answer_from: int  # index of <SEP>: predictions from here on (scratchpad tokens) are supervised


def parity_scratchpad(ell: int, jump: int, rng) -> ScratchpadExample:
    """``<BOS> b_1..b_ell <SEP> b'_1..b'_{ell/jump}`` with its coupled position ids (module docstring)."""
    if jump < 1 or ell < 1 or ell % jump:
        raise TaskError(f"need jump >= 1 dividing ell >= 1, got ell = {ell}, jump = {jump}")
    bits = [int(b) for b in rng.integers(0, 2, size=ell)]
    prefix = [0]
    for b in bits:
        prefix.append(prefix[-1] ^ b)
    scratch = [prefix[jump * i] for i in range(1, ell // jump + 1)]
    tokens = (BOS, *(BITS[b] for b in bits), SEP, *(BITS[b] for b in scratch))
    ids = (0, *(-(-i // jump) for i in range(1, ell + 1)), 0, *range(1, ell // jump + 1))
    return ScratchpadExample(tokens, ids, ell + 1)


def scratchpad_vocab() -> list[str]:
    return [BOS, SEP, *BITS]

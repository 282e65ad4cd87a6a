"""Golowich et al. (2025) Section 5 objects that are defined exactly in the paper: the variable-assignment
instances of App. E.3 (eq. (22)) with their coupled position IDs, and the three contexts of Section 5.3.

* :func:`variable_assignment` draws one instance of eq. (22): ``w`` chains ``v_{j,1} <- v_{j,2}; ...;
  v_{j,d} <- v_{j,d+1}`` over distinct variable IDs, interleaved at random (order within a chain kept),
  ``v_init = v_{1,1}``; the sequence is ``<BOS>, v_{1,1}, <SEP_1>, (the interleaved assignments), <SEP_2>,
  (the scratchpad v_{1,1} <- v_{1,2}, ..., v_{1,d} <- v_{1,d+1})``.  ``w`` is the largest number of chains whose
  assignments (3 tokens each) fit in the ``ell`` tokens between the separators.  Position IDs (App. E.3): the
  true positions ``0, 1, 2, ...`` for every token before ``<SEP_2>`` (``<BOS>`` is 0), then ``0`` for ``<SEP_2>``
  and ``I_j, I_j + 1, I_j + 2`` for the scratchpad's j-th assignment, ``I_j`` the position ID of ``v_{1,j}`` in
  the input (the text's summary line ``0, 1, ..., ell, 0, I_1, I_1 + 1, I_1 + 2, ...``).
* :func:`contexts` gives the positions each of L_short, L_long and L_short,sparse of Section 5.3 attends to
  when predicting ``X_Lbar``: the ``L`` most recent tokens ``X_{Lbar-L : Lbar-1}``, all of ``X_{1 : Lbar-1}``, and
  the recent ones plus ``X_J``, ``J`` a k-subset of ``[Lbar - L - 1]`` (eq. (6)).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

BOS, SEP1, SEP2, ARROW = "<BOS>", "<SEP_1>", "<SEP_2>", "<-"


class ExperimentDefinitionError(ValueError):
    """Parameters outside what the paper's definition admits (no room for a chain, too few variables)."""


@dataclass(frozen=True)
class VariableAssignment:
    tokens: tuple
    position_ids: tuple
    chains: tuple  # chains[j] = (v_{j,1}, ..., v_{j,d+1}); chains[0] is the one starting at v_init
    answer: object  # v_{1,d+1}
    input_length: int  # ell: tokens before <SEP_2>


def chains_that_fit(d: int, ell: int) -> int:
    """The largest w with 3 d w <= ell (each assignment ``v <- v'`` is three tokens)."""
    return ell // (3 * d)


def variable_assignment(d: int, ell: int, vocab: int, rng: random.Random) -> VariableAssignment:
    """One instance of App. E.3, eq. (22) (see the module docstring)."""
    if d < 1:
        raise ExperimentDefinitionError(f"depth d must be >= 1, got {d}")
    w = chains_that_fit(d, ell)
    if w < 1:
        raise ExperimentDefinitionError(f"no chain of depth {d} fits in {ell} tokens (needs 3 d = {3 * d})")
    if w * (d + 1) > vocab:
        raise ExperimentDefinitionError(f"{w} chains of depth {d} need {w * (d + 1)} distinct variables > {vocab}")
    ids = rng.sample(range(vocab), w * (d + 1))
    chains = tuple(tuple(ids[j * (d + 1):(j + 1) * (d + 1)]) for j in range(w))
    order = [j for j in range(w) for _ in range(d)]
    rng.shuffle(order)  # interleave: the s-th occurrence of chain j is its s-th assignment
    step = [0] * w
    body, where = [], {}
    for j in order:
        s = step[j]
        step[j] += 1
        if j == 0:
            where[s] = 3 + len(body)  # position ID of v_{1,s+1} (BOS = 0, v_init = 1, SEP_1 = 2)
        body += [chains[j][s], ARROW, chains[j][s + 1]]
    head = [BOS, chains[0][0], SEP1]
    scratch = [x for s in range(d) for x in (chains[0][s], ARROW, chains[0][s + 1])]
    tokens = (*head, *body, SEP2, *scratch)
    n_in = len(head) + len(body)
    pos = (*range(n_in), 0, *(where[s] + t for s in range(d) for t in range(3)))
    return VariableAssignment(tokens, pos, chains, chains[0][d], n_in)


def follow(tokens: tuple, start, d: int):
    """The answer by reading the input: from ``start`` follow ``v <- v'`` d times (the task's definition)."""
    body = tokens[3:tokens.index(SEP2)]
    nxt = {body[i]: body[i + 2] for i in range(0, len(body), 3)}
    v = start
    for _ in range(d):
        v = nxt[v]
    return v


def contexts(Lbar: int, L: int, J: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
    """Positions attended to when predicting X_Lbar by the three losses of Section 5.3."""
    if not 1 <= L < Lbar:
        raise ExperimentDefinitionError(f"need 1 <= L < Lbar, got L = {L}, Lbar = {Lbar}")
    if any(not 1 <= j <= Lbar - L - 1 for j in J) or len(set(J)) != len(J):
        raise ExperimentDefinitionError(f"J must be distinct positions in [Lbar - L - 1] = [1, {Lbar - L - 1}]")
    recent = tuple(range(Lbar - L, Lbar))
    return {"short": recent, "long": tuple(range(1, Lbar)), "short,sparse": tuple(sorted(J)) + recent}

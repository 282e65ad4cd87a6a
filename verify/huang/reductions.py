"""Huang et al. Lemma 36's reduction, executable: a C-RASP[periodic, local] program F for Sigma* b e* would give

    L(i) := E[j <= i] ( Q_b(j) and E[k <= j, k = j - 1] F(k) )

(only the local relation k = j - 1), and L decides Sigma* b e* b Sigma* -- two b's separated only by e's, our
reconstruction of Lemma 35's language, which Krebs (2008, Lemma 6.11) excludes.  :func:`lemma36_reduction`
evaluates L at the last position of ``w`` with ``F`` given as a predicate on prefixes.
"""

from __future__ import annotations

from collections.abc import Callable


def lemma36_reduction(w: str, F: Callable[[str], bool]) -> bool:
    """L at the last position of ``w``: some position j holds b and F holds at position j - 1 (its prefix)."""
    return any(w[j - 1] == "b" and j >= 2 and F(w[:j - 1]) for j in range(1, len(w) + 1))

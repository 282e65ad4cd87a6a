"""Golowich, Jelassi, Brandfonbrener, Kakade, Malach (golowich2025): the theory, checked exactly.

Modules: :mod:`.exact` (planted ensembles, sparse functional attention with rational weights, risks,
coverage), :mod:`.lemmas` (Lemmas C.1, C.2), :mod:`.prop31`, :mod:`.heads` (Prop 3.2 / B.1),
:mod:`.thm43` (each inequality of the proof of Theorem 4.3), :mod:`.coupling` (Prop 4.4 / D.2).
Findings are written up in docs/gaps.md.
"""

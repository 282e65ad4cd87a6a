"""golowich2025 footnotes 3, 8, 16 and the Appendix F / Table 5 budget statements (exact integer arithmetic)."""

from fractions import Fraction

import z3

from verify.claims import checks
from verify.kernel import EnumerationStep, Proof, Z3Step, assert_proof, negated


@checks("golowich2025:app-f", "golowich2025:tab5")
def test_appendix_f_budget_statements():
    """'roughly 25B tokens', 'final 30% with PoSE', 'roughly 70% without', '1.3B parameters' from Table 5."""
    from verify.golowich.sec5 import TABLE5 as T5

    tokens = {m: T5["steps"][m] * T5["batch"][m] * T5["context"][m] for m in ("h_short", "h_long")}
    short_tokens, long_tokens = tokens["h_short"], tokens["h_long"]
    d, mlp, layers, vocab = T5["d_model"], T5["mlp"], T5["layers"], T5["vocab"]
    blocks = layers * (4 * d * d + 2 * d * mlp)
    facts = {
        "short tokens ~ 25B": abs(short_tokens - 25 * 10**9) <= Fraction(5, 100) * 25 * 10**9,
        "long tokens ~ 25B": abs(long_tokens - 25 * 10**9) <= Fraction(5, 100) * 25 * 10**9,
        "PoSE on the final ~30%": abs(Fraction(T5["pose_steps"], T5["steps"]["h_short"]) - Fraction(3, 10))
        < Fraction(1, 100),
        "h_long's batch halved": 2 * T5["batch"]["h_long"] == T5["batch"]["h_short"],
        "~1.3B parameters (tied embeddings)": abs(blocks + vocab * d - 13 * 10**8) <= 5 * 10**7,
    }
    step = EnumerationStep("golowich2025:app-f", "Appendix F budget", instances=lambda: list(facts.items()),
                           predicate=lambda kv: kv[1])
    wrong = {"tokens would be 2x25B if batch were not halved": abs(48000 * 8192 * 128 - 25 * 10**9)
             <= Fraction(5, 100) * 25 * 10**9}
    step = EnumerationStep(**{**step.__dict__, "negative": negated(step, instances=lambda: list(wrong.items()))})
    assert_proof(Proof("golowich2025:app-f", "Appendix F", (step,)))
    assert (short_tokens, long_tokens, blocks) == (25690112000, 25165824000, 1207959552)


@checks("golowich2025:fn3")
def test_footnote3_constant_factor_needs_a_stronger_L_condition():
    """fn 3: [cL, L] for any constant c 'suffices'.  The proof uses (7) at l = L - 2 L_local, which needs
    L - 2 L_local >= cL: with c = 3/4 the theorem's L >= 4 L_local is not enough (L = 8, L_local = 2)."""
    L, Ll = z3.Ints("L Ll")
    c = z3.RealVal("3/4")
    need = Z3Step("golowich2025:fn3", "c = 3/4: L >= 4 L_local does not give L - 2 L_local >= c L",
                  hypotheses=(Ll >= 1, L >= 4 * Ll), goal=L - 2 * Ll >= c * L)
    holds_half = Z3Step("golowich2025:fn3", "c = 1/2: L >= 4 L_local gives L - 2 L_local >= L/2",
                        hypotheses=(Ll >= 1, L >= 4 * Ll), goal=L - 2 * Ll >= z3.RealVal("1/2") * L)
    holds_half = Z3Step(**{**holds_half.__dict__, "negative": need})
    res = assert_proof(Proof("golowich2025:fn3", "footnote 3", (holds_half,)))
    assert "counter-model" in res[0].negative_outcome.detail  # e.g. L = 8, L_local = 2 at c = 3/4
    strengthened = negated(need, hypotheses=(Ll >= 1, L >= 8 * Ll))  # L >= 2 L_local / (1 - c) repairs it
    assert strengthened.discharge().holds

"""Tightness table of the training-length bounds: ``python scripts/tightness.py > docs/tightness.md``.

1. For the class of each App. A.2 construction (ModP p = 2..8, SimpleTask omega = 1..8; every pair whose quantities
   are at most the construction's): the certified lower bound of bounds/lower.py, the proved upper bound of
   bounds/corrected.py (the default of ``python -m bounds.estimate``), upper/lower, and the measured threshold of
   the stored bounds.experiments.measure summaries (cpu preset, else quick; test loss < 0.01, a different error notion than eps; a trained
   model is one member of the class, so it may generalize below the class's lower bound).  The paper's formula as
   printed (constant 1) and the earlier proof count (both refuted) beside them.
2. The pairs of docs/gaps.md: their true threshold (bounds/true_threshold.py: exact enumeration, then the z3 supremum
   of bounds/sup_z3.py) against the corrected bound for the pair.
3. The number of heads: the chain family's certified lower bound and the corrected bound for classes of h-head
   models at K/eps = 100, beside Theorem 4.1's printed sample term for the chain's own models.
4. The hardmax term: classes with small gamma (p = 8), where the hardmax family gives N* >= H.
5. Each ingredient varied alone from a base class, and all jointly.
All at eps = 1/10 unless stated.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bounds.estimate import estimate  # noqa: E402
from bounds.lengths import Length  # noqa: E402
from bounds.margin import BoundsError, combine, ingredients  # noqa: E402
from bounds.sup_z3 import refine_true_threshold  # noqa: E402
from bounds.true_threshold import true_threshold  # noqa: E402

EPS = Fraction(1, 10)


def _len(v) -> str:
    if v is None:
        return "none"
    return str(v) if isinstance(v, int) else str(Length(Fraction(v["pow2_exponent"]), v["plus"]))


def measured() -> dict:
    """N_min per task from the stored bounds.experiments.measure summaries: the cpu preset where it has the task, else quick."""
    import json

    out = {}
    for preset in ("quick", "cpu"):
        for kind in ("modp", "simple"):
            path = Path(__file__).resolve().parents[1] / "docs" / "results" / f"izzo2025-{kind}-{preset}.json"
            if path.exists():
                for t in json.loads(path.read_text())["tasks"]:
                    if t.get("n_min") is not None:
                        out[t["task"]] = f"{t['n_min']} ({preset})"
    return out


def true_column(models, max_length) -> tuple[str, int | None]:
    if len(models) != 2:
        return "n/a (single model)", None
    try:
        t = true_threshold(*models, 0, EPS, max_length)
    except BoundsError as e:
        return f"not computed ({str(e).split(';')[0]})", None
    try:
        t = refine_true_threshold(t, *models)
    except BoundsError:
        pass  # the z3 supremum does not apply: the enumeration's answer stands
    if t.exact is None:
        return f"undetermined up to {max_length}", None
    return str(t.exact), t.exact


def class_row(name, model, meas):
    from bounds.lengths import log10_ratio_upper
    from bounds.lower import ModelClass, best_lower_bound

    ing = ingredients(model)
    pr = ingredients(model, definition="printed")
    r = estimate(ing, EPS, 0, pr, "proof-count")
    best = best_lower_bound(ModelClass.of(ing, EPS))
    upper = Length.from_json(r["corrected"]["N"])
    ratio = f"10^{log10_ratio_upper(upper, best.lower):.2f}" if best else "-"
    lower = f"{best.lower} ({best.family})" if best else "-"
    return (f"| {name} | {lower} | {upper} | {ratio} | {meas.get(name, '-')} | {_len(r['as_published']['N'])} | "
            f"{_len(r['proof_count']['N'])} |")


def pair_row(name, models, max_length):
    from bounds.lengths import log10_ratio_upper

    ing = combine(ingredients(models[0]), ingredients(models[1]))
    pr = combine(ingredients(models[0], definition="printed"), ingredients(models[1], definition="printed"))
    r = estimate(ing, EPS, 0, pr, "proof-count")
    c = r["corrected"]
    corr = _len(c["N"]) if c.get("N") is not None else f"none ({c['reason'].split(':')[0]})"
    true, T = true_column(models, max_length)
    ratio = f"10^{log10_ratio_upper(Length.from_json(c['N']), Length.of(T)):.2f}" if T and c.get("N") else "-"
    return f"| {name} | {true} | {corr} | {ratio} | {_len(r['as_published']['N'])} |"


def heads_row(h: int):
    from bounds.corrected import corrected_bound
    from bounds.lengths import log10_ratio_upper
    from bounds.lower import ModelClass, chain

    K = 10 * EPS * 10  # K/eps = 100
    cls = ModelClass(h + 1, 1, 1, h, K, 8, Fraction(8), EPS)
    lb = chain(cls, h)
    f, _ = lb.pair()
    pub = ingredients(f, definition="printed")
    printed = Fraction(pub.tau * pub.period) * pub.L2 / EPS**2
    up = corrected_bound(ingredients(f), EPS).N  # the chain model's own K is the class's
    return (f"| {h} | {lb.lower} | {up} | 10^{log10_ratio_upper(up, lb.lower):.2f} | {float(printed):.4g} |")


def hardmax_row(gamma: Fraction):
    from bounds.lengths import log10_ratio_upper
    from bounds.lower import ModelClass, NotInClassError, hardmax

    cls = ModelClass(2, 1, 0, 1, Fraction(1), 8, gamma, EPS)
    try:
        lb = hardmax(cls)
    except NotInClassError as e:
        return f"| {gamma} | - ({e}) | - | - |"
    H = cls.hardmax_threshold
    f, _ = lb.pair()
    up = corrected_bound_of(f)
    return f"| {gamma} | {lb.lower} | {up} | 10^{log10_ratio_upper(up, lb.lower):.2f} | {H} |"


def ingredient_rows():
    """One ingredient at a time from a base class (|Sigma| = 2, Delta = 2, tau = 0, one head, K = 1, p = 8,
    gamma = 8), then jointly: the best certified lower bound, the proved upper bound, and their ratio."""
    from bounds.lengths import log10_ratio_upper
    from bounds.lower import ModelClass, best_lower_bound

    base = dict(sigma=2, period=2, tau=0, heads=1, K=Fraction(1), precision_bits=8, gamma=Fraction(8), eps=EPS)
    variants = [("base", {})]
    variants += [(f"Delta = {d}", {"period": d}) for d in (8, 32)]
    variants += [(f"tau = {t}", {"tau": t}) for t in (4, 32)]
    variants += [(f"\\|Sigma\\| = {s}", {"sigma": s}) for s in (8, 32)]
    variants += [(f"K = {k}", {"K": Fraction(k)}) for k in (10, 100)]
    variants += [(f"heads = {h}, \\|Sigma\\| = {h + 1}", {"heads": h, "sigma": h + 1}) for h in (2, 3)]
    variants += [(f"gamma = {g}", {"gamma": g}) for g in (Fraction(1), Fraction(1, 4))]
    variants += [("jointly: Delta = 8, tau = 4, \\|Sigma\\| = 4, K = 10, heads = 3, gamma = 1/2",
                  {"period": 8, "tau": 4, "sigma": 4, "K": Fraction(10), "heads": 3, "gamma": Fraction(1, 2)})]
    for name, kw in variants:
        cls = ModelClass(**{**base, **kw})
        best = best_lower_bound(cls)
        up = cls.upper().N
        yield (f"| {name} | {best.lower} ({best.family}) | {up} | 10^{log10_ratio_upper(up, best.lower):.2f} |")


def corrected_bound_of(model):
    from bounds.corrected import corrected_bound

    return corrected_bound(ingredients(model), EPS).N


def main():
    from constructions.tasks.modp import ModPTask
    from constructions.tasks.simple import SimpleTask
    from counterexamples.izzo.estimate_breaks import heaviside_pair, residual_pair, unembedding_pair
    from counterexamples.izzo.search import search_pair
    from counterexamples.izzo.witnesses import bump_pair

    meas = measured()
    print("# Tightness of the training-length bounds (eps = 1/10)\n")
    print("Generated by `python scripts/tightness.py > docs/tightness.md` (see its docstring). N* is the class "
          "threshold: the\nsmallest training length that suffices for every pair whose quantities (|Sigma|, Delta, tau, "
          "heads, the modulus K,\np, gamma) are at most the model's. The lower bound is certified (bounds/lower.py: a pair "
          "in the class that agrees\nup to that length and differs by more than eps later), the upper bound proved "
          "(bounds/corrected.py). The\nmeasured threshold is the training length at which trained models reach test "
          "loss < 0.01\n(docs/results/izzo2025-*-{cpu,quick}.json, docs/measured_thresholds.md): one member of the class, not its worst "
          "pair.\n")
    print("## 1. The classes of the App. A.2 constructions\n")
    print("| class of | lower <= N* (family) | N* <= upper (proved) | upper/lower | measured threshold | "
          "as published N (constant 1, refuted) | proof count N (earlier, refuted) |")
    print("|---|---|---|---|---|---|---|")
    for p in range(2, 9):
        print(class_row(f"modp(p={p},k=0)", ModPTask(p, 0).limit_transformer(), meas))
    for w in range(1, 9):
        print(class_row(f"simple(omega={w})", SimpleTask(w).limit_transformer(error=1e-2), meas))
    print("\n## 2. Pairs of docs/gaps.md: true threshold against the corrected bound for the pair\n")
    print("| pair | true threshold (exact) | corrected N for the pair | corrected/true | as published N |")
    print("|---|---|---|---|---|")
    pairs = [("residual pair (agrees to 2, differs at 3)", residual_pair(), 3),
             ("unembedding pair N=8 (agrees to 16, differs at 17)", unembedding_pair(8), 17),
             ("heaviside pair N=250 (agrees to 500, differs at 501)", heaviside_pair(250), 501),
             ("bump pair N=8 (agrees to 16, differs at 17)", bump_pair(8), 17),
             ("search pair (2, 66) (agrees to 2, differs at 3..7)", search_pair(2, 66), 7)]
    for name, (f, g), max_length in pairs:
        print(pair_row(name, [f, g], max_length))
    print("\n## 3. The number of heads (classes of h-head models, |Sigma| = h + 1, Delta = 1, tau = 1, K/eps = 100)\n")
    print("The chain family's lower bound grows like (4K/(h eps))^h; Theorem 4.1's printed sample term tau Delta "
          "L^2/eps^2\nof the chain's own model grows like (K/eps)^2 (izzo2025:thm4.1.heads: refuted for h >= 3).\n")
    print("| heads h | lower (chain) | upper (proved, k = 2h) | upper/lower | printed tau Delta L^2/eps^2 |")
    print("|---|---|---|---|---|")
    for h in (1, 2, 3, 4, 6, 8):
        print(heads_row(h))
    print("\n## 4. The hardmax term (|Sigma| = 2, Delta = 1, tau = 0, one head, K = 1, p = 8)\n")
    print("| gamma | lower (hardmax family) | upper (proved) | upper/lower | H = ceil(2^(p/gamma)) |")
    print("|---|---|---|---|---|")
    for gamma in (Fraction(1), Fraction(1, 2), Fraction(1, 4), Fraction(47, 10000)):
        print(hardmax_row(gamma))
    print("\n## 5. Each ingredient alone, and jointly (eps = 1/10)\n")
    print("K/eps enters the bump family linearly and Delta multiplies it; tau adds w; |Sigma| enters the lower bound "
          "only\nthrough the chain (|Sigma| >= h + 1) and the upper bound polynomially; heads enter exponentially on "
          "both sides;\ngamma through H = ceil(2^(p/gamma)) on both sides.\n")
    print("| class | lower (family) | upper (proved) | upper/lower |")
    print("|---|---|---|---|")
    for line in ingredient_rows():
        print(line)


if __name__ == "__main__":
    main()

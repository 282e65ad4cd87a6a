"""``python -m bounds.estimate``: the minimum training length predicted by Izzo et al. Theorem 4.1.

    N = max{ hardmax_length, sample_length }

* hardmax_length = smallest integer N with N^gamma >= 2^p (ceil of 2^{p/gamma}; 1 if gamma = +inf), sec. 3.2.
* sample_length  = the length of the auxiliary string z built in the proof of App. A.1, with eps' = eps / L:

      |z| <= 1 + Delta * (tau + 1) * (1 + max{ 2/eps', 1/eps' + 1/eps'^2 })

  ((tau+1) suffix positions, <= (tau+1)/eps' tokens for the f-prefix and <= (tau+1)/eps'^2 for g; 2(tau+1)/eps'
  in the small case; times Delta for the (token, residue) reduction; +1 for ``$``).  The printed theorem has tau
  where we use tau + 1: the proof's tau-suffix has tau + 1 positions (offsets 0..tau) and with tau = 0 the printed
  term tau Delta L^2/eps^2 vanishes, which is false (docs/gaps.md, ``izzo2025:thm4.1``).

The constant is therefore 1 times the token count of the proof's construction; it is not fitted to anything.  The
conclusion ``|f - g| = O(delta + eps)`` carries a second constant that the paper does not give; eps here is the
paper's eps (the error scale), not a guaranteed error.  Everything is exact (the ceiling of a + sqrt(q) by integer
square roots).  The theorem needs the ``izzo`` precision model and ReLU MLPs; the CLI refuses
a ``huang`` model and warns about Heaviside units.  Usage errors exit 2 with one line.  No torch is imported.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from fractions import Fraction

from bounds.cli import OneLineParser, fraction_arg
from bounds.margin import INF, BoundsError, Ingredients, combine, ingredients
from constructions.limit_transformer.hardmax import hardmax_float

CONSTANT_NOTE = ("constant: 1 x the token count of the auxiliary string z in the proof of App. A.1 "
                 "((tau+1) suffix + (tau+1)/eps' f-prefix + (tau+1)/eps'^2 g tokens, eps' = eps/L, times Delta "
                 "for the (token, residue) reduction, +1 for $); the constant of the error O(delta + eps) is not "
                 "given by the paper.")
TAU_NOTE = ("tau+1 replaces the printed tau: the proof's tau-suffix has tau+1 positions, and with tau = 0 the "
            "printed term tau*Delta*L^2/eps^2 = 0 is refuted (docs/gaps.md).")


class UsageError(BoundsError):
    """A command-line argument is invalid (message says which and why)."""


def _ceil_plus_sqrt(a: Fraction, q: Fraction) -> int:
    """ceil(a + sqrt(q)) exactly, for rationals a and q >= 0."""
    num, den = q.numerator, q.denominator
    approx = Fraction(math.isqrt(num * den * 4**64), den * 2**64)  # floor-ish of sqrt(q), within 2^-63
    k = math.ceil(a + approx)
    while k - 1 >= a and (k - 1 - a) ** 2 >= q:
        k -= 1
    while k < a or (k - a) ** 2 < q:
        k += 1
    return k


def sample_length(tau: int, period: int, L2: Fraction, eps: Fraction) -> int:
    """1 + ceil(Delta (tau+1) (1 + max(2x, x + x^2))), x = L/eps, computed exactly (L = sqrt(L2))."""
    eps, L2 = Fraction(eps), Fraction(L2)
    if eps <= 0:
        raise UsageError(f"--eps must be positive, got {eps}")
    c = period * (tau + 1)
    x2 = L2 / eps**2
    if x2 >= 1:  # x + x^2 >= 2x
        return 1 + _ceil_plus_sqrt(c * (1 + x2), c * c * x2)
    return 1 + _ceil_plus_sqrt(Fraction(c), 4 * c * c * x2)


def printed_sample_term(tau: int, period: int, L2: Fraction, eps: Fraction) -> Fraction:
    """tau Delta L^2 / eps^2 exactly as printed in Theorem 4.1 (0 when tau = 0)."""
    return tau * period * Fraction(L2) / eps**2


def estimate(ing: Ingredients, eps, delta=0) -> dict:
    """The estimate as a JSON-able dict (see the module docstring)."""
    eps = Fraction(eps)
    hl = ing.hardmax_length
    sl = sample_length(ing.tau, ing.period, ing.L2, eps)
    g = ing.gamma
    return {
        "gamma": None if g == INF else str(g), "gamma_float": None if g == INF else float(g),
        "gamma_infinite": g == INF,
        "L": ing.L, "L2": str(ing.L2), "tau": ing.tau, "period": ing.period, "alphabet_size": ing.alphabet_size,
        "precision_bits": ing.precision_bits, "precision": ing.precision, "eps": str(eps), "delta": str(delta),
        "two_pow_p_over_gamma": hardmax_float(g, ing.precision_bits),
        "hardmax_length": hl, "sample_length": sl, "N": max(hl, sl),
        "printed_sample_term": float(printed_sample_term(ing.tau, ing.period, ing.L2, eps)),
        "constant": 1, "constant_note": CONSTANT_NOTE, "tau_note": TAU_NOTE,
        "heaviside_warning": ing.has_heaviside,
    }


# ------------------------------------------------------------------------------------------- CLI
def _parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="python -m bounds.estimate",
                 description="Predicted minimum training length of Izzo et al. Theorem 4.1 (one-layer Limit "
                             "Transformers, izzo precision model).")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--task", help="modp or simple (the App. A.2 construction); default modp")
    src.add_argument("--model", action="append", metavar="FILE.json",
                     help="a model file (give twice for the pair f, g: min gamma, max L)")
    ap.add_argument("--period", type=int, default=5, help="ModPTask period p (default 5)")
    ap.add_argument("--index", type=int, default=0, help="ModPTask index k (default 0)")
    ap.add_argument("--omega", type=fraction_arg, default=Fraction(1), help="SimpleTask frequency (default 1)")
    ap.add_argument("--mlp-error", type=float, default=1e-2,
                    help="SimpleTask: certified sup-error of the sine MLP (default 0.01)")
    ap.add_argument("--eps", type=fraction_arg, default=Fraction(1, 10), help="error scale eps > 0 (default 0.1)")
    ap.add_argument("--delta", type=fraction_arg, default=Fraction(0),
                    help="agreement delta on training lengths (only echoed; conclusion is O(delta + eps))")
    ap.add_argument("--precision-bits", type=int, default=None, help="p (default: the model's, 8 for tasks)")
    ap.add_argument("--definition", choices=("completed", "printed"), default="completed",
                    help="gamma and L as completed (default) or as printed in the paper")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def _models(args):
    if args.model:
        from constructions.limit_transformer.serialize import load_model

        return [load_model(f) for f in args.model]
    task = (args.task or "modp").lower()
    bits = 8 if args.precision_bits is None else args.precision_bits
    if task == "modp":
        from constructions.tasks.modp import ModPTask

        return [ModPTask(args.period, args.index).limit_transformer(precision_bits=bits)]
    if task == "simple":
        from constructions.tasks.simple import SimpleTask

        return [SimpleTask(args.omega).limit_transformer(error=args.mlp_error, precision_bits=bits)]
    raise UsageError(f"unknown task {args.task!r}; use --task modp or --task simple, or --model FILE.json")


def run(argv=None) -> dict:
    args = _parser().parse_args(argv)
    if args.eps <= 0:
        raise UsageError(f"--eps must be positive, got {args.eps}")
    if args.delta < 0:
        raise UsageError(f"--delta must be >= 0, got {args.delta}")
    if args.precision_bits is not None and args.precision_bits < 1:
        raise UsageError(f"--precision-bits must be a positive integer, got {args.precision_bits}")
    if args.mlp_error <= 0:
        raise UsageError(f"--mlp-error must be positive, got {args.mlp_error}")
    if args.period < 1:
        raise UsageError(f"--period must be >= 1, got {args.period}")
    models = _models(args)
    for m in models:
        if m.precision != "izzo":
            raise UsageError(f"model {m.name or '?'} uses the {m.precision!r} precision model; Theorem 4.1's hardmax "
                             "term needs 'izzo' (shift the max logit to 0, flush terms <= 2^-p)")
    ings = [ingredients(m, args.precision_bits, args.definition) for m in models]
    ing = ings[0]
    for other in ings[1:]:
        ing = combine(ing, other)
    out = estimate(ing, args.eps, args.delta)
    out["source"] = ", ".join(args.model) if args.model else (args.task or "modp")
    out["definition"] = args.definition
    out["_json"] = args.json
    return out


def _text(r: dict) -> str:
    g = "+inf" if r["gamma_infinite"] else f"{r['gamma']} (= {r['gamma_float']:.6g})"
    lines = [
        f"Izzo et al. Theorem 4.1 estimate for {r['source']} ({r['definition']} gamma and L)",
        f"  gamma = {g}   L = {r['L']:.6g} (L^2 = {r['L2']})   tau = {r['tau']}   Delta = {r['period']}   "
        f"|Sigma| = {r['alphabet_size']}   p = {r['precision_bits']} bits ({r['precision']})   eps = {r['eps']}   "
        f"delta = {r['delta']}",
        f"  hardmax term: 2^(p/gamma) = {r['two_pow_p_over_gamma']:.6g} -> hardmax_length = {r['hardmax_length']}",
        f"  sample term:  1 + Delta(tau+1)(1 + max(2L/eps, L/eps + L^2/eps^2)) -> sample_length = "
        f"{r['sample_length']}   (printed tau*Delta*L^2/eps^2 = {r['printed_sample_term']:.6g})",
        f"  N = max(hardmax_length, sample_length) = {r['N']}",
        f"  {r['constant_note']}",
        f"  {r['tau_note']}",
    ]
    if r["heaviside_warning"]:
        lines.append("  warning: the MLP has Heaviside units; Lip(MLP) <= ||A||_F ||B||_F (used by the proof) fails "
                     "for them, so L does not control the MLP")
    return "\n".join(lines)


def main(argv=None) -> int:
    try:
        r = run(argv)
    except (BoundsError, ValueError) as e:  # UsageError, ModelFormatError, UnsupportedModelError, TaskError
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"bounds.estimate: error: {msg}", file=sys.stderr)
        return 2
    as_json = r.pop("_json")
    print(json.dumps(r) if as_json else _text(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())

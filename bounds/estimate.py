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

from bounds.corrected import NoBoundError, corrected_bound, published_bound
from bounds.lengths import Length, integer_text
from bounds.margin import INF, BoundsError, Ingredients, combine, ingredients, interval_ingredients
from bounds.true_threshold import MAX_CONFIGS
from constructions.limit_transformer.hardmax import hardmax_float
from lengthgen_cli import (
    Parser,
    add_delta_option,
    add_eps_option,
    add_period_option,
    add_precision_bits_option,
    bounded_int,
    command,
    finite_real,
    rational,
)
from lengthgen_cli.options import MAX_PERIOD

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


def proof_count(ing: Ingredients, eps) -> dict:
    """The package's earlier estimate (refuted, docs/gaps.md): max{hardmax_length, sample_length} with L and tau+1."""
    sl = sample_length(ing.tau, ing.period, ing.L2, eps)
    k = ing.hardmax_exponent
    hl = None if k is None else (Length.of(1) if ing.gamma == INF else Length.pow2(k))
    N = None if hl is None else (hl if hl.exact is None or hl.exact >= sl else Length.of(sl))
    return {"hardmax_length": None if hl is None else hl.to_json(), "sample_length": sl,
            "N": None if N is None else N.to_json()}


def _constants_text(pc) -> str:
    if pc.trivial:
        return "eta = eps/(2K) >= 2 (any z works)"
    return f"eta = eps/(2K) ~ {float(pc.eta):.4g}, theta ~ {float(pc.theta):.4g}, G = {pc.G}"


def estimate(ing: Ingredients, eps, delta=0, printed: Ingredients | None = None, bound: str = "corrected",
             nesting: int | None = None) -> dict:
    """The estimate as a JSON-able dict: ``N`` is the ``bound`` chosen (corrected by default; see
    :mod:`bounds.corrected`), with the corrected, published and proof-count numbers side by side."""
    eps = Fraction(eps)
    g = ing.gamma
    out = {
        "bound": bound, "mode": ing.mode,
        "gamma": None if g == INF else str(g), "gamma_float": None if g == INF else float(g),
        "gamma_infinite": g == INF, "gamma_unresolved": ing.gamma_unresolved,
        "L": ing.L, "L2": str(ing.L2), "tau": ing.tau, "period": ing.period, "alphabet_size": ing.alphabet_size,
        "heads": ing.heads, "precision_bits": ing.precision_bits, "precision": ing.precision, "eps": str(eps),
        "delta": str(delta), "two_pow_p_over_gamma": hardmax_float(g, ing.precision_bits) if g != 0 else None,
        "printed_sample_term": float(printed_sample_term(ing.tau, ing.period, ing.L2, eps)),
        "constant_note": CONSTANT_NOTE, "tau_note": TAU_NOTE, "heaviside_warning": ing.has_heaviside,
        "proof_count": proof_count(ing, eps),
    }
    try:
        c = corrected_bound(ing, eps, nesting)
        out["corrected"] = {"N": c.N.to_json(), "N_text": str(c.N), "hardmax_length": c.hardmax.to_json(),
                            "sample_length": c.sample, "K_upper": c.K_upper, "lipschitz_upper": c.lipschitz_upper,
                            "value_sum_upper": c.value_sum_upper, "classes": c.classes, "window": c.window,
                            "nesting": c.nesting, "error": "delta + eps (constant 1)",
                            "eta": str(c.constants.eta) if c.constants.eta is not None else None,
                            "theta": None if c.constants.trivial else str(c.constants.theta),
                            "G": c.constants.G, "constants_text": _constants_text(c.constants)}
    except NoBoundError as e:
        out["corrected"] = {"N": None, "reason": str(e)}
    if printed is not None:
        try:
            pb = published_bound(printed, eps)
            out["as_published"] = {"N": pb.N.to_json(), "N_text": str(pb.N), "hardmax_length": pb.hardmax.to_json(),
                                   "sample_length": pb.sample, "gamma": None if printed.gamma == INF
                                   else str(printed.gamma), "L": printed.L, "tau": printed.tau,
                                   "error": "O(delta + eps), constant not given"}
        except NoBoundError as e:
            out["as_published"] = {"N": None, "reason": str(e)}
    sel = {"corrected": out["corrected"], "as-published": out.get("as_published"),
           "proof-count": out["proof_count"]}[bound]
    if sel is None or sel.get("N") is None:
        raise NoBoundError(f"no {bound} bound: {(sel or {}).get('reason', 'not computed')}")
    out["N"] = sel["N"]
    out["hardmax_length"] = sel["hardmax_length"]
    out["sample_length"] = sel["sample_length"]
    return out


# ------------------------------------------------------------------------------------------- CLI
FAST_LOAD_BYTES = 1 << 20  # model files larger than this are read straight into interval arithmetic


def _parser() -> argparse.ArgumentParser:
    ap = Parser(module="bounds.estimate",
                description="Minimum training length for one-layer Limit Transformers (izzo precision "
                            "model): the corrected bound by default (bounds/corrected.py), the paper's "
                            "Theorem 4.1 formula with --as-published.")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--task", help="modp or simple (the App. A.2 construction); default modp")
    src.add_argument("--model", action="append", metavar="FILE.json",
                     help="a model file (give twice, or use --against, for the pair f, g)")
    ap.add_argument("--against", metavar="G.json", help="the second model g of the pair (with --model f.json)")
    add_period_option(ap, default=5, help="ModPTask period p")
    ap.add_argument("--index", type=bounded_int(0, MAX_PERIOD - 1, f"MAX_PERIOD - 1 = {MAX_PERIOD - 1}"), default=0,
                    help="ModPTask index k (default 0)")
    ap.add_argument("--omega", type=rational(positive=True), default=Fraction(1),
                    help="SimpleTask frequency (default 1)")
    ap.add_argument("--mlp-error", type=finite_real(positive=True), default=1e-2,
                    help="SimpleTask: certified sup-error of the sine MLP (default 0.01)")
    add_eps_option(ap)
    add_delta_option(ap, help="agreement delta on training lengths (the corrected conclusion is delta + eps)")
    add_precision_bits_option(ap, help="p (default: the model's, 8 for tasks)")
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--as-published", action="store_true",
                       help="the paper's max{2^(p/gamma), tau Delta L^2/eps^2} with printed gamma, L and tau "
                            "(constant 1; refuted, docs/gaps.md)")
    which.add_argument("--proof-count", action="store_true",
                       help="the package's earlier estimate (completed gamma and L, tau+1; refuted, docs/gaps.md)")
    ap.add_argument("--definition", choices=("completed", "printed"), default="completed",
                    help="gamma and L of the --proof-count estimate (default completed)")
    ap.add_argument("--mode", choices=("auto", "exact", "interval"), default="auto",
                    help="arithmetic: exact rationals, certified intervals, or auto (exact while small)")
    ap.add_argument("--measured", metavar="RESULTS",
                    help="a bounds.measure summary: print predicted N, measured N_min and their ratio per task")
    ap.add_argument("--true-max-length", type=bounded_int(1, 1000, "1000"), default=10,
                    help="pair mode: enumerate every input up to this length for the pair's true threshold "
                         f"(default 10; refused above {MAX_CONFIGS} input configurations)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    return ap


def _load(path, mode):
    import os

    from constructions.limit_transformer.serialize import load_model

    try:
        big = os.path.getsize(path) > FAST_LOAD_BYTES
    except OSError:
        big = False  # the exact loader reports the missing file
    if mode == "interval" or (mode == "auto" and big):
        from bounds.interval_model import load_interval_model

        return load_interval_model(path)
    return load_model(path)


def _models(args):
    if args.model:
        files = list(args.model) + ([args.against] if args.against else [])
        if len(files) > 2:
            raise UsageError("give at most two models (f and g)")
        return [_load(f, args.mode) for f in files]
    if args.against:
        raise UsageError("--against needs --model f.json")
    task = (args.task or "modp").lower()
    bits = 8 if args.precision_bits is None else args.precision_bits
    if task == "modp":
        from constructions.tasks.modp import ModPTask

        return [ModPTask(args.period, args.index).limit_transformer(precision_bits=bits)]
    if task == "simple":
        from constructions.tasks.simple import SimpleTask

        return [SimpleTask(args.omega).limit_transformer(error=args.mlp_error, precision_bits=bits)]
    raise UsageError(f"unknown task {args.task!r}; use --task modp or --task simple, or --model FILE.json")


def _ingredients(m, bits, definition, mode):
    from constructions.limit_transformer.model import LimitTransformer

    if not isinstance(m, LimitTransformer):  # a model read by the interval reader (a task needs no reader)
        return interval_ingredients(m, bits, definition)
    return ingredients(m, bits, definition, mode=mode)


def run(argv=None) -> dict:
    args = _parser().parse_args(argv)
    if args.measured:
        from bounds.measured import compare

        return {**compare(args.measured, (args.task or "modp").lower(), construction_prediction), "_json": args.json}
    models = _models(args)
    for m in models:
        if m.precision != "izzo":
            raise UsageError(f"model {m.name or '?'} uses the {m.precision!r} precision model; Theorem 4.1's hardmax "
                             "term needs 'izzo' (shift the max logit to 0, flush terms <= 2^-p)")
    ings = [_ingredients(m, args.precision_bits, args.definition, args.mode) for m in models]
    printed = [_ingredients(m, args.precision_bits, "printed", args.mode) for m in models]
    ing, pr = ings[0], printed[0]
    for other, op in zip(ings[1:], printed[1:], strict=True):
        ing, pr = combine(ing, other), combine(pr, op)
    nesting = ing.heads if len(models) == 2 else 2 * ing.heads
    bound = "as-published" if args.as_published else "proof-count" if args.proof_count else "corrected"
    out = estimate(ing, args.eps, args.delta, pr, bound, nesting)
    out["source"] = ", ".join(args.model + ([args.against] if args.against else [])) if args.model \
        else (args.task or "modp")
    out["definition"] = args.definition
    if len(models) == 2:
        out["true_threshold"] = _true(models, args, out)
    out["_json"] = args.json
    return out


def _true(models, args, out) -> dict:
    """The pair's true threshold (bounds/true_threshold.py) and the ratio bound / true when it is determined."""
    from bounds.sup_z3 import refine_true_threshold
    from bounds.true_threshold import true_threshold

    try:
        t = true_threshold(*models, args.delta, args.eps, args.true_max_length)
        try:
            t = refine_true_threshold(t, *models)
        except BoundsError:
            pass  # the z3 supremum does not apply (too many patterns): the enumeration's answer stands
    except (BoundsError, AttributeError, TypeError) as e:  # interval models have no exact class evaluation
        return {"value": None, "max_length": args.true_max_length,
                "text": f"not computed: {str(e).splitlines()[0] if str(e) else type(e).__name__}"}
    res = {"value": t.exact, "text": t.describe(), "max_length": t.max_length,
           "first_above_delta": t.first_above_delta}
    N = out.get("N")
    if t.exact is not None and isinstance(N, int):
        res["ratio"] = str(Fraction(N, t.exact))
        res["ratio_float"] = N / t.exact
    return res


def _text(r: dict) -> str:
    g = "+inf" if r["gamma_infinite"] else (f"{r['gamma']} (= {r['gamma_float']:.6g})" if len(r["gamma"]) <= 24
                                             else f"{r['gamma_float']:.10g} (exact rational in --json)")
    mode = ("exact rational arithmetic" if r["mode"] == "exact" else
            "certified interval arithmetic (gamma is a lower bound, norms upper bounds)")
    c, pub, pc = r["corrected"], r.get("as_published") or {}, r["proof_count"]
    lines = [
        f"Training-length bound for {r['source']} ({mode})",
        f"  gamma = {g}   tau = {r['tau']}   Delta = {r['period']}   |Sigma| = {r['alphabet_size']}   "
        f"heads = {r['heads']}   p = {r['precision_bits']} bits ({r['precision']})   eps = {r['eps']}   "
        f"delta = {r['delta']}",
    ]
    if c.get("N") is not None:
        lines += [
            f"  corrected: K = max_m ||U||_F (1 + ||A||_F ||B||_F) sum_h max_c ||V_h y_c|| <= {c['K_upper']:.6g}, "
            f"C = {c['classes']} classes, w = tau+1 = {c['window']}, k = {c['nesting']} heads, "
            f"{c['constants_text']}",
            f"    N = max(N_1, N_H) = {c['N_text']}   (N_1 = compression length {integer_text(c['sample_length'])}, "
            f"N_H from H = hardmax threshold {_len(c['hardmax_length'])})",
            "    conclusion: |f - g| <= delta on all lengths <= N implies |f - g| <= delta + eps everywhere "
            "(proved: bounds/corrected.py; every step checked by bounds.compression)",
        ]
    else:
        lines.append(f"  corrected: no bound -- {c['reason']}")
    if pub.get("N") is not None:
        pg = pub["gamma"] or "+inf"
        pg = pg if len(pg) <= 24 else f"{float(Fraction(pg)):.10g}"
        lines.append(f"  as published (printed gamma = {pg}, printed L = {pub['L']:.6g}, "
                     f"printed tau = {pub['tau']}; constant 1): N = max(2^(p/gamma), tau Delta L^2/eps^2) = "
                     f"{pub['N_text']}   [refuted, docs/gaps.md]")
    lines.append(f"  proof count (earlier estimate, L = {r['L']:.6g}): hardmax_length = {_len(pc['hardmax_length'])}, "
                 f"sample_length = {integer_text(pc['sample_length'])}, N = {_len(pc['N'])}   [refuted, docs/gaps.md]")
    lines.append(f"  N = {_len(r['N'])}   ({r['bound']})")
    tt = r.get("true_threshold")
    if tt is not None:
        lines.append(f"  true threshold of the pair (every input up to length {tt['max_length']}, exact): "
                     f"{tt['text']}")
        if tt.get("ratio") is not None:
            lines.append(f"  bound / true = {tt['ratio_float']:.6g}")
    if r["heaviside_warning"]:
        lines.append("  warning: the MLP has Heaviside units; Lip(MLP) <= ||A||_F ||B||_F fails for them")
    return "\n".join(lines)


def _len(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, int):
        return integer_text(v)
    return str(Length(Fraction(v["pow2_exponent"]), v["plus"]))


def construction_prediction(task_kind: str, params: dict, eps_mse: float) -> dict:
    """The estimate for the App. A.2 construction of a task at the error scale sqrt(eps_mse) (a measured mean
    squared error eps_mse is an error size sqrt(eps_mse)); what ``--measured`` and ``bounds.measure`` report,
    with the earlier proof-count estimate beside it."""
    pred_eps = Fraction(math.sqrt(eps_mse)).limit_denominator(10**6)
    argv = ["--task", task_kind, "--eps", str(pred_eps), "--json"]
    if task_kind == "modp":
        argv += ["--period", str(params["period"]), "--index", str(params.get("index", 0))]
    else:
        argv += ["--omega", str(params["omega"])]
    r = run(argv)
    out = {k: r[k] for k in ("hardmax_length", "sample_length", "N", "L", "gamma", "period", "tau", "eps", "bound")}
    out["proof_count_N"] = r["proof_count"]["N"]
    return out


@command
def main(argv=None) -> int:
    try:
        r = run(argv)
    except (BoundsError, ValueError) as e:  # UsageError, NoBoundError, ModelFormatError, UnsupportedModelError
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"bounds.estimate: error: {msg}", file=sys.stderr)
        return 2
    as_json = r.pop("_json")
    if as_json:
        print(json.dumps(r))
    elif "measured" in r:
        from bounds.measured import text

        print(text(r))
    else:
        print(_text(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())

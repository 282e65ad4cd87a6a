"""``python -m bounds.estimate``: how long training inputs must be, as a bracket ``lower <= N* <= upper``.

* **upper** (default): the corrected bound of :mod:`bounds.corrected`, a theorem with every constant explicit: for
  one model, valid for its whole *class* (every pair whose quantities -- |Sigma|, Delta, tau, heads, the modulus K,
  p, gamma -- are at most its own); for a pair (``--model f.json --against g.json``), for that pair.
* **lower**: the largest certified agreement length of the families of :mod:`bounds.lower` in that class: a pair in
  the class that agrees within delta on every input up to that length and differs by more than delta + eps later,
  so no training length below it suffices for the class.  For a pair, its own true threshold (exact enumeration,
  then z3 within ``--time-budget`` seconds; :mod:`bounds.true_threshold`, :mod:`bounds.sup_z3`) is printed beside.
* ``--as-published``: Theorem 4.1's formula ``max{2^{p/gamma}, tau Delta L^2/eps^2}`` with printed gamma, L, tau and
  constant 1 (refuted, docs/gaps.md); ``--proof-count``: the package's earlier estimate (refuted).  ``--definition``
  changes only the proof-count estimate; the corrected bound always uses the completed gamma and the moduli.

Lengths beyond 64 bits are printed in the log domain (``ceil(2^k)``: an upper bound, ``floor(2^k)``: a lower bound;
the same objects in ``--json``), so any number of heads gets an answer.  Usage errors exit 2 with one line.  No torch
is imported.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m bounds.estimate: its own process, set up before numpy is imported
    from lengthgen_cli.process import one_blas_thread_from_start

    one_blas_thread_from_start()

import argparse
import json
import math
import sys
from fractions import Fraction

from bounds.corrected import NoBoundError, corrected_bound, published_bound
from bounds.lengths import Length, approx_float, approx_text, log10_ratio_upper
from bounds.margin import (
    INF,
    BoundsError,
    Ingredients,
    choose_mode,
    combine,
    ingredients,
    interval_ingredients,
)
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
    sl = Length.at_most(sample_length(ing.tau, ing.period, ing.L2, eps))
    k = ing.hardmax_exponent
    hl = None if k is None else (Length.of(1) if ing.gamma == INF else Length.pow2(k))
    from bounds.lengths import upper_max

    N = None if hl is None else upper_max(hl, sl)
    return {"hardmax_length": None if hl is None else hl.to_json(), "sample_length": sl.to_json(),
            "N": None if N is None else N.to_json()}


def _constants_text(pc) -> str:
    if pc.trivial:
        return "eta = eps/K >= 2 or k = 0 (any z works)"
    return (f"eta = eps/K ~ {approx_text(pc.eta, 4)}, lambda = {pc.lam}, theta ~ {approx_text(pc.theta, 4)} "
            f"(a theta + rho* <= eta)")


NO_EXACT_CLASS = ("the lower bound needs the class's K and gamma exactly (interval enclosures bound K from above and "
                  "gamma from below: the upper bound's side, not the lower bound's), and exact arithmetic is refused "
                  "for this model")


def lower_bound(ing: Ingredients, eps, delta=0, classes=None) -> dict:
    """The best certified lower bound of :mod:`bounds.lower` for the class of ``ing`` (exact mode) or the join of
    ``classes`` (the models' classes, from exact quantities; an entry None when exact arithmetic was refused).  Each
    side of the bracket rounds its own way: the upper bound reads K from above and gamma from below, the lower bound
    reads them exactly, so its class is the model's own and never larger."""
    from bounds.lower import ModelClass, best_lower_bound

    if classes is None:
        if ing.mode != "exact" or len(ing.moduli) != 1:
            return {"N": None, "reason": NO_EXACT_CLASS}
        classes = [ModelClass.of(ing, eps, delta)]
    if any(c is None for c in classes):
        return {"N": None, "reason": NO_EXACT_CLASS}
    cls = classes[0]
    for other in classes[1:]:
        cls = cls.join(other)
    best = best_lower_bound(cls)
    if best is None:
        return {"N": None, "reason": "no family of bounds.lower applies to the class (K = 0 or too small for eps)"}
    return {"N": best.lower.to_json(), "N_text": str(best.lower), "agree": best.agree.to_json(),
            "family": best.family, "params": {k: str(v) for k, v in best.params.items()},
            "K": str(cls.K), "gamma": None if cls.gamma == INF else str(cls.gamma),
            "statement": f"a pair in the class ({best.family} family, bounds/lower.py) agrees within delta on every "
                         f"input of length <= {best.agree} and differs by more than delta + eps later"}


def estimate(ing: Ingredients, eps, delta=0, printed: Ingredients | None = None, bound: str = "corrected",
             nesting: int | None = None, count: Ingredients | None = None, classes=None) -> dict:
    """The estimate as a JSON-able dict: ``N`` is the ``bound`` chosen (corrected by default; see
    :mod:`bounds.corrected`), with the bracket's lower bound, the published and proof-count numbers side by side.
    ``ing`` has the completed gamma (the corrected bound's); ``count`` the ingredients of ``--definition`` for the
    proof-count estimate (default ``ing``); ``classes`` the models' classes from exact quantities (see
    :func:`lower_bound`; default: the class of ``ing`` when it is exact)."""
    eps = Fraction(eps)
    g = ing.gamma
    out = {
        "bound": bound, "mode": ing.mode,
        "gamma": None if g == INF else str(g), "gamma_float": None if g == INF else approx_float(g),
        "gamma_infinite": g == INF, "gamma_unresolved": ing.gamma_unresolved,
        "L": approx_float(ing.L), "L2": str(ing.L2), "tau": ing.tau, "period": ing.period, "alphabet_size": ing.alphabet_size,
        "heads": ing.heads, "precision_bits": ing.precision_bits, "precision": ing.precision, "eps": str(eps),
        "delta": str(delta), "two_pow_p_over_gamma": approx_float(hardmax_float(g, ing.precision_bits)) if g != 0 else None,
        "printed_sample_term": approx_float(printed_sample_term(ing.tau, ing.period, ing.L2, eps)),
        "constant_note": CONSTANT_NOTE, "tau_note": TAU_NOTE, "heaviside_warning": ing.has_heaviside,
        "proof_count": proof_count(count or ing, eps),
    }
    try:
        c = corrected_bound(ing, eps, nesting)
        pc = c.constants
        out["corrected"] = {"N": c.N.to_json(), "N_text": str(c.N), "hardmax_length": c.hardmax.to_json(),
                            "sample_length": c.sample.to_json(), "K": str(c.K), "K_float": approx_float(c.K),
                            "model_K": [str(k) for k in c.model_K], "classes": c.classes, "window": c.window,
                            "nesting": c.nesting, "error": "delta + eps (constant 1)", "scope": "class" if
                            len(ing.moduli) == 1 else "pair",
                            "eta": str(pc.eta) if pc.eta is not None else None,
                            "lambda": str(pc.lam), "theta": None if pc.trivial else str(pc.theta),
                            "constants_text": _constants_text(pc)}
    except NoBoundError as e:
        out["corrected"] = {"N": None, "reason": str(e)}
    out["lower"] = lower_bound(ing, eps, delta, classes)
    lo, up = out["lower"], out["corrected"]
    if lo and lo.get("N") is not None and up.get("N") is not None and up["scope"] == "class":
        out["bracket"] = True
        out["ratio_log10_upper"] = _finite(log10_ratio_upper(Length.from_json(up["N"]), Length.from_json(lo["N"])))
    if printed is not None:
        try:
            pb = published_bound(printed, eps)
            out["as_published"] = {"N": pb.N.to_json(), "N_text": str(pb.N), "hardmax_length": pb.hardmax.to_json(),
                                   "sample_length": Length.at_most(pb.sample).to_json(), "gamma": None if printed.gamma == INF
                                   else str(printed.gamma), "L": approx_float(printed.L), "tau": printed.tau,
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
# an .npz archive counts as this many times its size against FAST_LOAD_BYTES: a float64 takes 8 bytes there and
# about 32-40 as the exact "a/2^k" string of a JSON file, so a model takes about the same reader in either format
NPZ_SIZE_FACTOR = 4


def _parser() -> argparse.ArgumentParser:
    ap = Parser(module="bounds.estimate",
                description="Minimum training length for one-layer Limit Transformers (izzo precision "
                            "model): the corrected bound by default (bounds/corrected.py), the paper's "
                            "Theorem 4.1 formula with --as-published.")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--task", help="modp or simple (the App. A.2 construction); default modp")
    src.add_argument("--model", action="append", metavar="FILE.json",
                     help="a model file, JSON or the exact binary .npz format (--save-npz) (give twice, or use "
                          "--against, for the pair f, g)")
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
                    help="a bounds.experiments.measure summary: print predicted N, measured N_min and their ratio per task")
    ap.add_argument("--true-max-length", type=bounded_int(1, 1000, "1000"), default=10,
                    help="pair mode: enumerate every input up to this length for the pair's true threshold "
                         f"(default 10; refused above {MAX_CONFIGS} input configurations)")
    ap.add_argument("--time-budget", type=finite_real(positive=True), default=10.0,
                    help="pair mode: seconds for the z3 refinement of the true threshold (default 10; the bound is "
                         "printed before it starts)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--save-npz", metavar="OUT.npz",
                    help="write the --model JSON file to OUT.npz, the exact binary model format "
                         "(constructions/limit_transformer/npz.py; refused unless every weight is a float64 value), "
                         "and exit; the estimate reads either format")
    return ap


def _big(path) -> bool:
    import os

    from constructions.limit_transformer.npz import is_npz

    try:
        return os.path.getsize(path) * (NPZ_SIZE_FACTOR if is_npz(path) else 1) > FAST_LOAD_BYTES
    except OSError:
        return False  # the exact loader reports the missing file


def _load(path, mode):
    from constructions.limit_transformer.serialize import load_model

    if mode == "interval" or (mode == "auto" and _big(path)):
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


def save_npz(args) -> dict:
    """``--save-npz OUT.npz``: the one --model file converted (:func:`constructions.limit_transformer.npz.json_to_npz`),
    written to a temporary name beside OUT and renamed, so OUT is never left half written."""
    from pathlib import Path

    from constructions.limit_transformer.npz import json_to_npz

    if not args.model or len(args.model) != 1 or args.against:
        raise UsageError("--save-npz converts exactly one --model FILE.json")
    out = Path(args.save_npz)
    if not args.save_npz.endswith(".npz"):
        raise UsageError(f"--save-npz {out}: the name must end in .npz")
    if out.exists() or out.is_symlink():
        raise UsageError(f"--save-npz {out} already exists; choose another name")
    if not (out.parent if str(out.parent) else Path(".")).is_dir():
        raise UsageError(f"--save-npz {out}: the directory {out.parent} does not exist")
    try:  # written to a temporary name beside OUT and renamed (lengthgen_cli.output.write_file)
        json_to_npz(args.model[0], out)
    except OSError as e:
        raise UsageError(f"--save-npz {out} cannot be written ({e.strerror})") from None
    return {"saved": str(out), "source": args.model[0], "_json": args.json}


#: every option, by what it is for (each mode refuses the options it does not use: :func:`_check_options`)
_TASK_OPTIONS = {"modp": ("--period", "--index"), "simple": ("--omega", "--mlp-error")}
_ESTIMATE_OPTIONS = ("--eps", "--delta", "--precision-bits", "--as-published", "--proof-count", "--definition",
                     "--mode")
_PAIR_OPTIONS = ("--true-max-length", "--time-budget")


def _check_options(args, given: set) -> None:
    """Refuse in one line every option given that the mode asked for does not use."""
    from lengthgen_cli import refuse_unused

    tasks = (*_TASK_OPTIONS["modp"], *_TASK_OPTIONS["simple"])
    if args.save_npz is not None:
        refuse_unused(given, ("--task", "--measured", *tasks, *_ESTIMATE_OPTIONS, *_PAIR_OPTIONS),
                      "--save-npz converts a model file and estimates nothing")
        return
    if args.measured:
        refuse_unused(given, ("--model", "--against", *tasks, *_ESTIMATE_OPTIONS, *_PAIR_OPTIONS),
                      "--measured recomputes each task's estimate at the results file's own eps")
        return
    if args.model:
        refuse_unused(given, tasks, "--model reads the model from its file, not from task parameters")
    else:
        kind = (args.task or "modp").lower()
        other = "simple" if kind == "modp" else "modp"
        if kind in _TASK_OPTIONS:
            refuse_unused(given, _TASK_OPTIONS[other], f"--task {kind} does not use it")
    if len(args.model or ()) + (args.against is not None) != 2:
        refuse_unused(given, _PAIR_OPTIONS, "the true threshold is computed for a pair (--model f.json --against "
                                            "g.json)")


def run(argv=None) -> dict:
    from lengthgen_cli import given_options

    ap = _parser()
    args = ap.parse_args(argv)
    _check_options(args, given_options(ap, argv))
    if args.save_npz is not None:
        return save_npz(args)
    if args.measured:
        from bounds.measured import compare

        return {**compare(args.measured, (args.task or "modp").lower(), construction_prediction), "_json": args.json}
    models = _models(args)
    for m in models:
        if m.precision != "izzo":
            raise UsageError(f"model {m.name or '?'} uses the {m.precision!r} precision model; Theorem 4.1's hardmax "
                             "term needs 'izzo' (shift the max logit to 0, flush terms <= 2^-p)")
    ings = [_ingredients(m, args.precision_bits, "completed", args.mode) for m in models]
    if args.model and args.mode == "auto":  # a near-tie the interval reader cannot decide: decide it exactly
        files = list(args.model) + ([args.against] if args.against else [])
        for i, ing in enumerate(ings):
            if ing.gamma_unresolved:
                from constructions.limit_transformer.serialize import load_model

                try:
                    exact = load_model(files[i])
                    ings[i] = ingredients(exact, args.precision_bits, "completed", mode="exact")
                    models[i] = exact
                except BoundsError:
                    pass  # exact arithmetic refused (the model is too large): the interval answer stands
    printed = [_ingredients(m, args.precision_bits, "printed", args.mode) for m in models]
    counted = ings if args.definition == "completed" else printed
    files = list(args.model) + ([args.against] if args.against else []) if args.model else [None] * len(models)
    classes = [_exact_class(m, i, path, args) for m, i, path in zip(models, ings, files, strict=True)]
    ing, pr, ct = ings[0], printed[0], counted[0]
    for other, op, oc in zip(ings[1:], printed[1:], counted[1:], strict=True):
        ing, pr, ct = combine(ing, other), combine(pr, op), combine(ct, oc)
    bound = "as-published" if args.as_published else "proof-count" if args.proof_count else "corrected"
    out = estimate(ing, args.eps, args.delta, pr, bound, None, ct, classes)
    out["source"] = ", ".join(args.model + ([args.against] if args.against else [])) if args.model \
        else (args.task or "modp")
    out["definition"] = args.definition
    out["_json"] = args.json
    out["_pair"] = (models, args) if len(models) == 2 else None
    return out


def _exact_class(model, ing, path, args):
    """The model's class from exact quantities (:func:`lower_bound`): ``ing`` itself in exact mode; else the model
    (or its file, when small) in exact arithmetic where :func:`bounds.margin.choose_mode` finds that cheap; None
    when it is refused."""
    from bounds.lower import ModelClass
    from constructions.limit_transformer.model import LimitTransformer

    try:
        if ing.mode != "exact":
            if not isinstance(model, LimitTransformer):
                if path is None or _big(path):
                    return None
                from constructions.limit_transformer.serialize import load_model

                model = load_model(path)
            if choose_mode(model, "auto") != "exact":
                return None
            ing = ingredients(model, args.precision_bits, "completed", mode="exact")
        return ModelClass.of(ing, args.eps, args.delta)
    except BoundsError:
        return None


def _true(models, args, out) -> dict:
    """The pair's true threshold (bounds/true_threshold.py, z3 within --time-budget) and bound / true."""
    from bounds.sup_z3 import refine_true_threshold
    from bounds.true_threshold import true_threshold

    try:
        t = true_threshold(*models, args.delta, args.eps, args.true_max_length)
        try:
            t = refine_true_threshold(t, *models, budget_s=args.time_budget)
        except BoundsError:
            pass  # the z3 supremum does not apply (too many patterns): the enumeration's answer stands
    except (BoundsError, AttributeError, TypeError) as e:  # interval models have no exact class evaluation
        return {"value": None, "max_length": args.true_max_length,
                "text": f"not computed: {str(e).splitlines()[0] if str(e) else type(e).__name__}"}
    res = {"value": t.exact, "text": t.describe(), "max_length": t.max_length,
           "first_above_delta": t.first_above_delta}
    N = out.get("N")
    if t.exact is not None and N is not None:
        res["ratio_log10_upper"] = _finite(log10_ratio_upper(Length.from_json(N), Length.of(t.exact)))
    return res


def _finite(x: float) -> float | None:
    """A JSON number, or None beyond the double range (JSON has no infinity)."""
    return x if math.isfinite(x) else None


def _pow10(log10_upper: float | None) -> str:
    return "10^(beyond the double range)" if log10_upper is None else f"10^{log10_upper:.2f}"


def _num(x: float | None) -> str:
    return "beyond the double range (exact square in --json)" if x is None else f"{x:.6g}"


def _gamma_text(r: dict) -> str:
    if r["gamma_infinite"]:
        return "+inf"
    g = Fraction(r["gamma"])
    if len(r["gamma"]) <= 24:
        return f"{r['gamma']} (= {approx_text(g)})"
    if r["gamma_float"] == 0 and g > 0:  # below the smallest double
        return f"~ 2^{g.numerator.bit_length() - g.denominator.bit_length()} (exact rational in --json)"
    return f"{approx_text(g, 10)} (exact rational in --json)"


def _text(r: dict) -> str:
    mode = ("exact rational arithmetic" if r["mode"] == "exact" else
            "certified interval arithmetic (gamma is a lower bound, norms upper bounds)")
    c, pub, pc, lo = r["corrected"], r.get("as_published") or {}, r["proof_count"], r.get("lower") or {}
    pair = c.get("scope") == "pair"
    lines = [
        f"Training-length bound for {r['source']} ({mode})",
        f"  gamma = {_gamma_text(r)}   tau = {r['tau']}   Delta = {r['period']}   |Sigma| = {r['alphabet_size']}   "
        f"heads = {r['heads']}   p = {r['precision_bits']} bits ({r['precision']})   eps = {r['eps']}   "
        f"delta = {r['delta']}",
    ]
    if r.get("bracket"):
        lines.append(f"  bracket for the class of this model (every pair with its quantities or less): "
                     f"{_len(lo['N'])} <= N* <= {_len(c['N'])}   (upper/lower <= {_pow10(r['ratio_log10_upper'])})")
    if c.get("N") is not None:
        what = "this pair" if pair else "every pair in the class"
        lines += [
            f"  upper (proved, bounds/corrected.py) for {what}: N = max(N_1, N_H) = {c['N_text']}",
            f"    K = max_j sum over heads of f and g of kappa_jh = {approx_text(Fraction(c['K']))} (exact in --json; "
            f"bounds/modulus.py), k = {c['nesting']} argmax sets, w = tau+1 = {c['window']}, {c['constants_text']}",
            f"    N_1 = compression length {_len(c['sample_length'])}, N_H from H = hardmax threshold "
            f"{_len(c['hardmax_length'])}; conclusion: |f - g| <= delta on all lengths <= N implies |f - g| <= "
            "delta + eps everywhere",
        ]
    else:
        lines.append(f"  upper: no bound -- {c['reason']}")
    if lo.get("N") is not None:
        lines.append(f"  lower (certified, bounds/lower.py) for the class{' of the pair' if pair else ''}: "
                     f"N* >= {lo['N_text']}: {lo['statement']}")
    elif lo:
        lines.append(f"  lower: none -- {lo['reason']}")
    if pub.get("N") is not None:
        pg = pub["gamma"] or "+inf"
        pg = pg if len(pg) <= 24 else approx_text(Fraction(pg), 10)
        lines.append(f"  as published (printed gamma = {pg}, printed L = {_num(pub['L'])}, "
                     f"printed tau = {pub['tau']}; constant 1): N = max(2^(p/gamma), tau Delta L^2/eps^2) = "
                     f"{pub['N_text']}   [refuted, docs/gaps.md]")
    lines.append(f"  proof count (earlier estimate, L = {_num(r['L'])}): hardmax_length = {_len(pc['hardmax_length'])}, "
                 f"sample_length = {_len(pc['sample_length'])}, N = {_len(pc['N'])}   [refuted, docs/gaps.md]")
    lines.append(f"  N = {_len(r['N'])}   ({r['bound']})")
    if r["heaviside_warning"]:
        lines.append("  warning: the MLP has Heaviside units; Lip(MLP) <= ||A||_F ||B||_F fails for them")
    return "\n".join(lines)


def _true_text(tt: dict) -> str:
    line = f"  true threshold of the pair (every input up to length {tt['max_length']}, exact; z3 beyond): {tt['text']}"
    if "ratio_log10_upper" in tt:
        line += f"\n  bound / true <= {_pow10(tt['ratio_log10_upper'])}"
    return line


def _len(v) -> str:
    if v is None:
        return "none"
    return str(Length.from_json(v))


def construction_prediction(task_kind: str, params: dict, eps_mse: float) -> dict:
    """The estimate for the App. A.2 construction of a task at the error scale sqrt(eps_mse) (a measured mean
    squared error eps_mse is an error size sqrt(eps_mse)); what ``--measured`` and ``bounds.experiments.measure`` report,
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
    lower = r.get("lower") or {}
    out["lower_N"] = lower.get("N")
    out["lower_family"] = lower.get("family")
    return out


@command
def main(argv=None) -> int:
    if argv is None:  # the process's own command line: a process of its own (not main([...]) called in-process)
        from lengthgen_cli.process import keep_freed_memory

        keep_freed_memory()  # a large model's temporaries reused, not faulted in again (lengthgen_cli/process.py)
    try:
        r = run(argv)
    except (BoundsError, ValueError) as e:  # UsageError, NoBoundError, ModelFormatError, UnsupportedModelError
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"bounds.estimate: error: {msg}", file=sys.stderr)
        return 2
    as_json, pair = r.pop("_json"), r.pop("_pair", None)
    if pair is not None and not as_json:
        print(_text(r), flush=True)  # the bound at once; the true threshold within --time-budget
        print(_true_text(_true(*pair, r)))
        return 0
    if pair is not None:
        r["true_threshold"] = _true(*pair, r)
    if as_json:
        print(json.dumps(r))
    elif "saved" in r:
        print(f"wrote {r['saved']} (exact float64 weights of {r['source']})")
    elif "measured" in r:
        from bounds.measured import text

        print(text(r))
    else:
        print(_text(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of ``bounds.certify`` (docs/certify.md): run ``python scripts/bench_certify.py [--runs DIR] [--budget S]``.

1. Enclosure backends on one workload, the weights ``u = pi * n^(-G)`` of 20,000 (n, G, pi) triples: numpy with
   outward padding (what :mod:`bounds.certify.class_softmax` uses, vectorized), mpmath.iv (one interval per call) and
   python-flint's arb (``pip install python-flint``; skipped when absent).  Time per enclosure and widest relative
   width; every enclosure is checked to contain the 60-digit mpmath value.
2. The bound of one box: the package's per-unit Dinkelbach scans + CROWN relaxation against plain interval
   arithmetic through the MLP (head output box -> pre-activations -> ReLU -> output), on the same boxes of a trained
   ModP model (d = 16, width 256, one head); median width of the bound of f - g, ratio.
3. One trained model certified against its construction within a time budget (one core): N0, boxes, gap, time.
4. The certified horizon H and the shortest failure X of that model (against its task's function and against its
   construction; N0 picked by the budget, and forced to the training length), median seconds over ``--repeats``
   runs: ``taskset -c 0 python scripts/bench_certify.py --horizon-only`` pins it to one core.
5. The time budget of the whole command: ``python -m bounds.certify`` run as a process on a 4-head pair (ModP
   heads of indices 0..3 at period 4, tau = 2: 32 pieces, lengths up to 8 enumerated) with ``--time-budget`` 1, 2
   and 5 s; wall seconds of the process (start-up and loading included) against the budget, and what the
   certificate reached (``--budget-only`` runs only this part).
6. The enumeration of every input of one length (``--enumeration-only --record RUN.json --lengths 33,49``): the fast
   path of :func:`bounds.certify.class_softmax.upper_bound` (``Problem(fast=True)``, the default) against the earlier
   path (``fast=False``) in the same process, alternating, on one seed of a trained run record against its
   construction and against its task's function; median seconds per length over ``--repeats``, the ratio, and
   whether both enclosures are equal.  The process is niced and uses one thread.

The trained model is the committed witness run (docs/results/izzo2025-trained-witness.json) unless ``--runs`` names a
``bounds.experiments.measure`` folder (then the first ModP p = 5 record, seed 0).  The load average is printed beside every time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one thread, before numpy loads
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WITNESS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "results",
                       "izzo2025-trained-witness.json")


def load(runs: str | None):
    from bounds.certify.trained import from_record

    if runs:
        for name in sorted(os.listdir(runs)):
            full = json.load(open(os.path.join(runs, name)))
            if "period=5" in full["key"]:
                return from_record(full["record"], 0), full["record"]
        raise SystemExit("no ModP p = 5 record in --runs")
    full = json.load(open(WITNESS))
    return from_record(full["record"], 0), full["record"]


def backends(count: int = 20000) -> list:
    import mpmath

    from bounds.certify.class_softmax import exp_bounds, log_bounds  # the exp/log core of weight_box

    rng = np.random.default_rng(0)
    n = rng.integers(2, 10**9, count).astype(float)
    G = rng.uniform(0, 3, count)
    pi = rng.uniform(0.01, 1, count)
    rows = []
    t = time.perf_counter()
    llo, lhi = log_bounds(pi, pi)
    s = np.log(n)
    x_lo = llo - G * s * (1 + 2**-40)
    x_hi = lhi - G * s * (1 - 2**-40)
    lo, hi = exp_bounds(x_lo - 1e-12 * np.abs(x_lo), x_hi + 1e-12 * np.abs(x_hi))
    rows.append(("numpy + outward padding", (time.perf_counter() - t) / count, lo, hi))
    k = min(count, 2000)
    mpmath.iv.prec = 53
    t = time.perf_counter()
    ivs = [mpmath.iv.mpf(float(pi[i])) * mpmath.iv.exp(-mpmath.iv.mpf(float(G[i])) * mpmath.iv.log(mpmath.iv.mpf(
        float(n[i])))) for i in range(k)]
    rows.append(("mpmath.iv (53 bits)", (time.perf_counter() - t) / k, np.array([float(v.a) for v in ivs]),
                 np.array([float(v.b) for v in ivs])))
    try:
        import flint

        flint.ctx.prec = 53
        t = time.perf_counter()
        arbs = [flint.arb(float(pi[i])) * (-flint.arb(float(G[i])) * flint.arb(float(n[i])).log()).exp()
                for i in range(k)]
        rows.append(("python-flint arb (53 bits)", (time.perf_counter() - t) / k,
                     np.array([float(a.lower()) for a in arbs]), np.array([float(a.upper()) for a in arbs])))
    except ImportError:
        rows.append(("python-flint arb", None, None, None))
    mpmath.mp.dps = 60
    out = []
    for name, per, lo_, hi_ in rows:
        if per is None:
            out.append({"backend": name, "status": "not installed"})
            continue
        m = len(lo_)
        ok = all(lo_[i] <= pi[i] * mpmath.power(n[i], -mpmath.mpf(G[i])) <= hi_[i] for i in range(0, m, max(1, m // 500)))
        width = float(np.max((hi_ - lo_) / np.maximum(hi_, 1e-300)))
        out.append({"backend": name, "us_per_enclosure": per * 1e6, "max_rel_width": width, "contains_60_digit": ok})
    return out


def naive_vs_crown(f, g, boxes: int = 64) -> dict:
    """Median width of the bound of D = f - g on random sub-boxes of the long-input domain."""
    from bounds.certify.class_softmax import _entry_logits, _head_spec, lf_max, lf_min, weight_box
    from bounds.certify.search import Problem, box_masses, pieces

    prob = Problem(f, g, ("softmax", "izzo"))
    piece = pieces(prob)[0]
    rng = np.random.default_rng(1)
    F = prob.free
    c = rng.uniform(0, 1, (boxes, F))
    w = 0.02
    tl, th = np.clip(c - w, 0, 1), np.clip(c + w, 0, 1)
    r_hi = np.full(boxes, 1 / 40)
    r_lo = np.full(boxes, 1 / 44)
    lo, hi, s_lo, s_hi, _ = box_masses(prob, piece, r_lo, r_hi, tl, th)
    t = time.perf_counter()
    Dlo, Dhi = prob.evaluate(piece.win, lo, hi, s_lo, s_hi)
    t_crown = time.perf_counter() - t
    t = time.perf_counter()
    # plain intervals: per model, head output box (coordinate-wise exact), then interval MLP
    outs = []
    for tables in (prob.ev.tf, prob.ev.tg):
        win = piece.win
        Y_lo = np.broadcast_to(tables.cm.inputs[win.query].astype(float), (boxes, tables.model.d)).copy()
        Y_hi = Y_lo.copy()
        for h in range(len(tables.cm.heads)):
            spec = _head_spec(_entry_logits(tables.cm, h, win), tables.semantics, tables.bits)
            u_lo, u_hi = weight_box(spec, win, lo, hi, s_lo, s_hi)
            V = tables.cm.heads[h][1][win.classes].astype(float)  # E x d
            for j in range(V.shape[1]):
                P = np.broadcast_to(V[:, j], (boxes, win.E))
                Y_hi[:, j] += lf_max(P, u_lo, u_hi)[0]
                Y_lo[:, j] += lf_min(P, u_lo, u_hi)[0]
        mlp = tables.model.layers[0].mlp
        A, b, B = mlp.A.astype(float), mlp.b.astype(float), mlp.B.astype(float)
        Uu = tables.model.unembedding.astype(float)
        Ap, An = np.maximum(A, 0), np.minimum(A, 0)
        z_lo = Y_lo @ Ap.T + Y_hi @ An.T + b
        z_hi = Y_hi @ Ap.T + Y_lo @ An.T + b
        a_lo, a_hi = np.maximum(z_lo, 0), np.maximum(z_hi, 0)
        Bp, Bn = np.maximum(B, 0), np.minimum(B, 0)
        y_lo = Y_lo + a_lo @ Bp.T + a_hi @ Bn.T
        y_hi = Y_hi + a_hi @ Bp.T + a_lo @ Bn.T
        Up, Un = np.maximum(Uu, 0), np.minimum(Uu, 0)
        outs.append((y_lo @ Up.T + y_hi @ Un.T, y_hi @ Up.T + y_lo @ Un.T))
    (flo, fhi), (glo, ghi) = outs
    naive = np.maximum(fhi - glo, ghi - flo)[:, 0]
    t_naive = time.perf_counter() - t
    return {"boxes": boxes, "box": "rho in [1/44, 1/40], theta width 0.04",
            "median_upper_crown": float(np.median(Dhi)), "median_upper_naive": float(np.median(naive)),
            "ratio_naive_over_crown": float(np.median(naive) / np.median(Dhi)),
            "seconds_crown": t_crown, "seconds_naive": t_naive}


def certify_one(f, g, budget: float, N: int) -> dict:
    from bounds.certify.search import Problem, certify

    t = time.perf_counter()
    cert = certify(Problem(f, g, ("softmax", "izzo")), 0.1, None, N + 1, budget, first=2)
    return {"verdict": cert.verdict, "upper": cert.upper, "lower": cert.lower, "gap": cert.gap, "N0": cert.N0,
            "boxes_split": cert.long.boxes_split, "long_converged": cert.long.converged,
            "witness_length": cert.witness_length, "seconds": time.perf_counter() - t}


def horizon_one(f, rec: dict, budget: float, repeats: int) -> list:
    """The certified horizon H and the shortest failure X (bounds.certify.horizon) of the model against its task's
    function and against its construction, with N0 picked by the budget and with N0 forced to the training length
    (``--max-length N + 1``: the lengths beyond are found by the horizon's own enumeration and bisection); per
    setting the median over ``repeats`` runs of the whole certificate's seconds and of the seconds to H and X (the
    certificate less the branch-and-bound that converges U and L)."""
    import statistics

    from bounds.certify.runs import _construction
    from bounds.certify.search import Problem, certify, task_target

    N = rec["N"]
    out = []
    for which in ("target", "construction"):
        for max_length in (None, N + 1):
            runs = []
            for _ in range(repeats):
                prob = (Problem(f, None, ("softmax", "softmax"), task_target(rec["task_kind"], rec["task_params"]))
                        if which == "target" else
                        Problem(f, _construction(rec["task_kind"], rec["task_params"])[0], ("softmax", "izzo")))
                t = time.perf_counter()
                cert = certify(prob, 0.1, None, N + 1, budget, max_length=max_length)
                total = time.perf_counter() - t
                runs.append((total, total - cert.long.seconds, cert))
            c = runs[-1][2].horizon
            out.append({"against": which, "max_length": max_length, "N0": runs[-1][2].N0, "H": c.H,
                        "X": c.X, "X_over_H": None if c.X is None else c.X / c.H, "probes": c.probes,
                        "same_H_X_every_run": len({(r[2].horizon.H, r[2].horizon.X) for r in runs}) == 1,
                        "median_seconds_certificate": statistics.median(r[0] for r in runs),
                        "median_seconds_to_H_and_X": statistics.median(r[1] for r in runs)})
    return out


def four_head_pair():
    """Two 4-head one-layer models at period 4 with tau = 2 (ModP(4)'s construction, one head per index k = 0..3,
    phi on the window); g's head 3 has its logit scale halved."""
    import dataclasses

    from constructions.limit_transformer.model import Head, Layer, LocalPhi
    from constructions.tasks import ModPTask

    def model(scale3):
        base = ModPTask(4, 0).limit_transformer()
        heads = []
        for k in range(4):
            h = ModPTask(4, k).limit_transformer(logit_scale=scale3 if k == 3 else None).layers[0].heads[0]
            heads.append(Head(query=h.query, key=h.key, value=h.value, phi=LocalPhi((0, 1, 2))))
        return dataclasses.replace(base, layers=(Layer(heads=tuple(heads), mlp=base.layers[0].mlp),))

    return model(None), model(8)


def budget_runs(budgets=(1.0, 2.0, 5.0)) -> list:
    import subprocess
    import tempfile

    from constructions.limit_transformer.serialize import save_model

    f, g = four_head_pair()
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        save_model(f, os.path.join(tmp, "f.json"))
        save_model(g, os.path.join(tmp, "g.json"))
        for b in budgets:
            t = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "bounds.certify", "--model", os.path.join(tmp, "f.json"),
                                "--against", os.path.join(tmp, "g.json"), "--time-budget", str(b), "--json"],
                               capture_output=True, text=True, cwd=os.path.dirname(os.path.dirname(
                                   os.path.abspath(__file__))))
            wall = time.perf_counter() - t
            rec = json.loads(r.stdout) if r.returncode == 0 else {"error": r.stderr.strip()}
            out.append({"budget": b, "wall_seconds": wall, "wall_over_budget": wall / b,
                        "certificate_seconds": rec.get("seconds"), "verdict": rec.get("verdict"),
                        "upper": rec.get("upper"), "lower": rec.get("lower"), "reached": rec.get("reached"),
                        "load_average": os.getloadavg()})
    return out


def enumeration_runs(path: str, lengths: list, repeats: int, seed_index: int = 0) -> dict:
    """Part 6: seconds of ``enumerate_length`` at each length, fast path against the earlier one."""
    from bounds.certify.runs import _construction
    from bounds.certify.search import Problem, enumerate_length, task_target
    from bounds.certify.trained import from_record

    rec = json.load(open(path))["record"]
    f = from_record(rec, seed_index)
    g, _ = _construction(rec["task_kind"], rec["task_params"])
    target = task_target(rec["task_kind"], rec["task_params"])
    out = {"record": os.path.basename(path), "task": rec["task"], "N": rec["N"], "seed_index": seed_index}
    for which in ("construction", "target"):
        probs = {fast: (Problem(f, g, ("softmax", "izzo"), fast=fast) if which == "construction"
                        else Problem(f, None, ("softmax", "softmax"), target, fast=fast)) for fast in (True, False)}
        for p in probs.values():
            enumerate_length(p, 3)  # build the windows' tables outside the timing
        rows = []
        for n in lengths:
            times = {True: [], False: []}
            got = {}
            for _ in range(repeats):
                for fast in (False, True):
                    t0 = time.perf_counter()
                    row = enumerate_length(probs[fast], n)
                    times[fast].append(time.perf_counter() - t0)
                    got[fast] = (row.lower, row.upper, row.configurations)
            old, new = float(np.median(times[False])), float(np.median(times[True]))
            rows.append({"length": n, "configurations": got[True][2], "earlier_s": round(old, 4),
                         "fast_s": round(new, 4), "ratio": round(old / new, 2), "same_enclosure": got[True] == got[False],
                         "load_average": os.getloadavg()})
        out[which] = rows
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", help="a bounds.experiments.measure run folder (default: the committed witness run)")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds for the certificate (default 60)")
    ap.add_argument("--horizon-only", action="store_true", help="run only part 4, the certified horizon")
    ap.add_argument("--horizon-budget", type=float, default=10.0,
                    help="seconds per certificate of part 4 (default 10)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per setting of part 4 (default 3)")
    ap.add_argument("--budget-only", action="store_true", help="run only part 5, the whole command's time budget")
    ap.add_argument("--enumeration-only", action="store_true",
                    help="run only part 6, the enumeration's fast path against the earlier one")
    ap.add_argument("--record", help="part 6: a trained run record (a file of a bounds.experiments.measure folder)")
    ap.add_argument("--lengths", default="33,49", help="part 6: model lengths, comma-separated (default 33,49)")
    args = ap.parse_args()
    if args.enumeration_only:
        if not args.record:
            raise SystemExit("--enumeration-only needs --record RUN.json")
        os.nice(10)
        start = os.getloadavg()
        res = enumeration_runs(args.record, [int(x) for x in args.lengths.split(",")], args.repeats)
        print(json.dumps({"load_average_start": start, "enumeration": res, "load_average_end": os.getloadavg()},
                         indent=1, default=float))
        return
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.budget_only:
        print(json.dumps({"budget": budget_runs()}, indent=1, default=float))
        return
    from constructions.tasks import ModPTask

    f, rec = load(args.runs)
    g = ModPTask(int(rec["task_params"]["period"]), 0).limit_transformer()
    out = {"load_average_start": os.getloadavg(), "model": f.name, "d": f.d,
           "width": f.layers[0].mlp.A.shape[0], "heads": len(f.layers[0].heads)}
    if not args.horizon_only:
        out["backends"] = backends()
        out["box_bound"] = naive_vs_crown(f, g)
        out["certificate"] = certify_one(f, g, args.budget, rec["N"])
    out["horizon"] = horizon_one(f, rec, args.horizon_budget, args.repeats)
    if not args.horizon_only:
        out["budget"] = budget_runs()
    out["load_average_end"] = os.getloadavg()
    print(json.dumps(out, indent=1, default=float))


if __name__ == "__main__":
    main()

"""Where the task certificate's gap enclosure loses width (docs/certify.md, "A GPT-2 model against its task").

Run ``python scripts/task_gap_widths.py --model DIR [--letters abc] [--centre 0.6,0.2,0.19] [--rho 0.005]``.  For a
one-layer NoPE GPT-2 read as ``--task majority_letters --alphabet`` reads it (the letters' harness token ids, the
separator ``#``), on boxes of (rho, letter shares) around ``--centre`` of letter-share widths 0.005 .. 0.25 (rho's
width a quarter of that, the equality ``2 rho + sum pi = 1`` propagated):

1. per intermediate of the layer (``a``, ``x1``, ``z2``, ``h``, ``pre``, ``act``, ``x2``), the largest coordinate
   width of its sampled range (float forward at 200 random points of the box), of the plain interval enclosure,
   of the centred one, of the affine trace's hull, and of the affine form's own range
   (:mod:`bounds.certify.gpt2_affine`);
2. the enclosure of the first answer's gap (``logit_a - max_j logit_j``) by each, against its sampled range, and the
   affine gap form's parts (box symbols, ``ln_2``'s fresh symbols, remainder r);
3. the CPU seconds per box of :meth:`bounds.certify.gpt2_task.GapEnclosure.gaps` on a batch of 64 random boxes of
   width 0.02, with and without the affine forms (process time: the load average is printed beside it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

STAGES = ("a", "x1", "z2", "h", "pre", "act", "x2")
WIDTHS = (0.005, 0.01, 0.02, 0.03, 0.05, 0.25)


def _box(propagate, boxes, centre, rho, w):
    b = propagate(np.array([max(rho - w / 8, 0.0)]), np.array([rho + w / 8]), np.maximum(centre - w / 2, 0)[None],
                  (centre + w / 2)[None])
    if not b[4][0]:
        raise SystemExit(f"task_gap_widths: error: the box of width {w} around {[float(v) for v in centre]} misses the simplex")
    return boxes(*b[:4])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--letters", default="abc")
    ap.add_argument("--centre", default="0.6,0.2,0.19")
    ap.add_argument("--rho", type=float, default=0.005)
    args = ap.parse_args()
    from bounds.certify.gpt2 import load
    from bounds.certify.gpt2_affine import _bounds_of
    from bounds.certify.gpt2_enclosure import Enclosure
    from bounds.certify.gpt2_targets import TARGETS
    from bounds.certify.gpt2_task import GapEnclosure, _boxes, propagate

    tgt = TARGETS["majority_letters"].restricted(args.letters)
    ids = tgt.token_ids(None)
    f = load(args.model, bos=ids[tgt.bos], alphabet=[ids[c] for c in tgt.letters] + [ids[tgt.sep]], absolute=True)
    outs = [ids[c] for c in tgt.classes]
    k = len(tgt.letters)
    centre = np.array([float(v) for v in args.centre.split(",")])
    if len(centre) != k:
        raise SystemExit(f"task_gap_widths: error: --centre needs {k} shares")
    ges = {"plain": GapEnclosure(f, outs, centred=False), "centred": GapEnclosure(f, outs, affine=False),
           "affine": GapEnclosure(f, outs)}
    rng = np.random.default_rng(0)
    print(f"{args.model}: d = {f.d}, letters {args.letters}, centre {[float(v) for v in centre]}, rho ~ {args.rho}")
    for w in WIDTHS:
        box = _box(propagate, _boxes, centre, args.rho, w)
        rs = rng.uniform(box[0][0], box[1][0], 200)
        ps = rng.uniform(box[2][0, :k], box[3][0, :k], (200, k))
        ps = np.concatenate([ps, rs[:, None]], axis=1)
        sampled = Enclosure(f).trace(k, rs, rs, ps, ps)
        traces = {name: g.enc.trace(k, *box) for name, g in ges.items()}
        print(f"letter-share width {w} (rho [{box[0][0]:.4g}, {box[1][0]:.4g}]): largest coordinate width")
        for n in STAGES:
            lo, hi = _bounds_of(sampled[n])
            row = {name: float(np.max(np.subtract(*_bounds_of(t[n])[::-1]))) for name, t in traces.items()}
            aff = traces["affine"].get("affine")
            form = float(np.max(np.subtract(*aff[n].bounds()[::-1]))) if aff else float("nan")
            print(f"  {n:4s} sampled {float((hi.max(0) - lo.min(0)).max()):9.3g}  plain {row['plain']:9.3g}  "
                  f"centred {row['centred']:9.3g}  affine hull {row['affine']:9.3g}  affine form {form:9.3g}")
        gs = ges["plain"].gaps(k, rs, rs, ps, ps)[0][:, 0]
        print(f"  gap of answer {tgt.classes[0]}: sampled [{gs.min():.4g}, {gs.max():.4g}]  " + "  ".join(
            f"{name} [{lo[0, 0]:.4g}, {hi[0, 0]:.4g}]" for name, (lo, hi) in
            ((name, g.gaps(k, *box)) for name, g in ges.items())))
        forms = ges["affine"].forms(traces["affine"])
        if forms:
            K, g = k + 2, forms[0]
            print(f"  its affine form (largest over competitors): box symbols {np.abs(g.G[0, :K]).sum(0).max():.3g}, "
                  f"ln_2's fresh symbols {np.abs(g.G[0, K:]).sum(0).max():.3g}, remainder r {g.r[0].max():.3g}")
    c = rng.dirichlet(np.ones(k), 64) * 0.98
    r = rng.uniform(0, 0.01, 64)
    b = propagate(r, r + 0.005, np.maximum(c - 0.01, 0), c + 0.01)
    batch = _boxes(*[x[b[4]] for x in b[:4]])
    for name in ("centred", "affine"):
        ges[name].gaps(k, *batch)
        t0 = time.process_time()
        ges[name].gaps(k, *batch)
        print(f"{name}: {(time.process_time() - t0) / len(batch[0]) * 1000:.1f} ms CPU per box (batch of "
              f"{len(batch[0])}, width 0.02; load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()

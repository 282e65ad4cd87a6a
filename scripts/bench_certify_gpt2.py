"""Benchmark of the one-layer GPT-2 certificate (docs/certify.md, "One-layer GPT-2 models").

Run ``python scripts/bench_certify_gpt2.py [--d 64] [--heads 1] [--budget 60]``.  One random one-layer NoPE GPT-2
(the Huang et al. majority cell's shape: d = 64, one head, alphabet {1, 2}, BOS 0, weights N(0, 0.02) as
``transformers`` initialises them, plus N(0, 0.3) noise so the attention is not uniform) is saved with
``save_pretrained``, read back by :func:`bounds.certify.gpt2.load`, and certified (eps = 0.1) against:

* itself;
* a copy with one ``ln_f`` weight changed by 1e-3 (a small change after the shared stream) and by 1.0;
* a copy with one ``ln_1`` weight changed by 1.0 (refuted at a short length);
* copies that differ before ``ln_f`` (the stream itself differs; the mean-value form of
  :mod:`bounds.certify.gpt2_difference` on centred enclosures): one ``ln_2`` weight, one ``ln_1`` weight, one
  attention (``c_attn``, a query column) weight and one MLP (``c_fc``) weight changed by 1e-3.

``--cases`` picks some (comma-separated names as printed); ``--no-affine`` certifies without the affine forms of
:mod:`bounds.certify.gpt2_affine` (the centred and mean-value forms alone, as before them).  BLAS runs on one thread (one core, as the
performance target states) unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS / MKL_NUM_THREADS are set.

Per pair: verdict, [L, U], N0, boxes split, seconds (wall clock on the machine it runs on; the load average is
printed beside it) and the import check's largest difference against the torch forward.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy is imported

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build(d: int, heads: int, path: str, seed: int = 0):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    cfg = GPT2Config(vocab_size=3, n_positions=256, n_embd=d, n_layer=1, n_head=heads, bos_token_id=0,
                     eos_token_id=0, resid_pdrop=0, embd_pdrop=0, attn_pdrop=0)
    m = GPT2LMHeadModel(cfg)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.3 * torch.randn_like(p))
        m.transformer.wpe.weight.zero_()
    m.save_pretrained(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--heads", type=int, default=1)
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--eps", type=float, default=0.1)
    ap.add_argument("--cases", default=None, help="comma-separated case names (default: all)")
    ap.add_argument("--no-affine", action="store_true",
                    help="without the affine forms of bounds.certify.gpt2_affine (the centred forms alone)")
    args = ap.parse_args()
    from bounds.certify import gpt2
    from bounds.certify.gpt2_search import certify_pair

    with tempfile.TemporaryDirectory() as tmp:
        build(args.d, args.heads, tmp)
        t = time.perf_counter()
        f = gpt2.load(tmp, alphabet=[1, 2])
        load_s = time.perf_counter() - t
    chk = gpt2.import_check(f, samples=16)
    print(f"d = {args.d}, heads = {args.heads}: load {load_s:.2f} s, import check max |torch - enclosure mid| = "
          f"{chk['max_abs_difference']:.3g}, outside = {chk['max_outside_enclosure']:.3g}")
    e = np.eye(f.d)
    pairs = [("itself", f),
             ("ln_f weight +1e-3", f.with_params(lnf=(f.lnf[0] + 1e-3 * e[3], f.lnf[1]))),
             ("ln_f weight +1", f.with_params(lnf=(f.lnf[0] + e[3], f.lnf[1]))),
             ("ln_1 weight +1", f.with_params(ln1=(f.ln1[0] + e[3], f.ln1[1]))),
             ("ln_2 weight +1e-3", f.with_params(ln2=(f.ln2[0] + 1e-3 * e[3], f.ln2[1]))),
             ("ln_1 weight +1e-3", f.with_params(ln1=(f.ln1[0] + 1e-3 * e[3], f.ln1[1]))),
             ("attn weight +1e-3", f.with_params(attn_w=f.attn_w + 1e-3 * np.outer(e[3], np.eye(3 * f.d)[5]))),
             ("mlp weight +1e-3", f.with_params(fc_w=f.fc_w + 1e-3 * np.outer(e[3], np.eye(f.fc_w.shape[1])[5])))]
    wanted = None if args.cases is None else {c.strip() for c in args.cases.split(",")}
    for name, g in pairs:
        if wanted is not None and name not in wanted:
            continue
        t = time.perf_counter()
        c = certify_pair(f, g, args.eps, budget_s=args.budget, affine=not args.no_affine)
        s = time.perf_counter() - t
        w = c.witness
        wtxt = f", witness length {w['length']} (torch |f - g| = {c.torch_difference:.4g})" \
            if c.verdict == "fails" else ""
        print(f"  {name:18s} {c.verdict:12s} [L, U] = [{c.lower:.4g}, {c.upper:.4g}]  N0 = {c.N0}  "
              f"boxes {c.boxes_split}  {s:.2f} s  (load avg {os.getloadavg()[0]:.1f}){wtxt}")


if __name__ == "__main__":
    main()

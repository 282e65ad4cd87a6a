"""Benchmark of ``python -m bounds.estimate`` on float-weight models: ``python scripts/bench_bounds.py``.

Models: one layer, one head, rng.normal weights (seed 0) written as save_model writes floats (exact ``a/2^k``
strings), tau = 2, MLP width = d, at three sizes up to d = 512, |Sigma| = 100, Delta = 64; plus an exact-mode pair
with |Sigma| Delta = 12 classes and tau = 2.  Each is timed as a fresh subprocess (wall clock, best of
``--repeat``), next to the baseline of the same run: a subprocess that only imports numpy and json and reads the
file.  Each float model is also converted to the exact binary format (``bounds.estimate --save-npz``,
constructions/limit_transformer/npz.py; the conversion timed once) and timed in the same run, its printed numbers
checked identical to the JSON file's (every field of ``--json`` but ``source``); its baseline imports numpy and
loads the archive's arrays.  Targets: < 1 s per float model, < 5 s for the exact pair.  Last rows: the exact true threshold
(bounds/true_threshold.py) of an integer pair of the search family with |Sigma| Delta = 3 x 4 = 12 classes, tau = 2,
p = 1 (hardmax from length 2), every input up to length L enumerated (f against a perturbed copy, delta = 0,
eps = 1/10 and, as the worst case, f against itself: nothing to stop at, every configuration evaluated).
Prints a markdown table, then the start-up of ``python -m bounds.estimate --task modp`` against
``python -c "import numpy"`` (target: CPU ratio < 2), both with the project's bytecode compiled (as after any
first run) and, where the environment forbids writing bytecode (``PYTHONDONTWRITEBYTECODE``), without it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _s(x: float) -> str:
    a, b = float(x).as_integer_ratio()
    return f"{a}/{b}" if b != 1 else str(a)


def _mat(a):
    return [[_s(x) for x in row] for row in np.atleast_2d(a)]


def model_dict(d, sigma, delta, width, seed=0, tau=2, heads=1):
    """A float-weight one-layer model; with several heads each has r = d/heads query/key rows (a multi-head layer
    of head dimension d/heads) and a full d x d value matrix."""
    rng = np.random.default_rng(seed)
    r = max(1, d // heads)

    def head():
        return {"query": _mat(rng.normal(size=(r, d))), "key": _mat(rng.normal(size=(r, d))),
                "value": _mat(rng.normal(size=(d, d)) / d),
                "phi": {"tau": tau, "values": [_s(x) for x in rng.normal(size=tau + 1)]}}

    return {"format": "lengthgen.limit-transformer", "version": 1, "name": f"normal-d{d}", "alphabet":
            [f"t{i}" for i in range(sigma)], "precision": "izzo", "precision_bits": 8,
            "embedding": _mat(rng.normal(size=(sigma + 1, d))),
            "positions": {"period": delta, "table": _mat(rng.normal(size=(delta, d)))},
            "layers": [{"heads": [head() for _ in range(heads)],
                        "mlp": {"A": _mat(rng.normal(size=(width, d))), "b": [_s(x) for x in rng.normal(size=width)],
                                "B": _mat(rng.normal(size=(d, width))), "activations": ["relu"] * width}}],
            "unembedding": _mat(rng.normal(size=(1, d))), "metadata": {}}


def wall(argv, repeat, env=None):
    """(best wall seconds, best CPU seconds of the child, stdout): CPU time is robust on a shared machine."""
    best, cpu = float("inf"), float("inf")
    for _ in range(repeat):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        p = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env)
        best = min(best, time.perf_counter() - t)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = min(cpu, r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
        if p.returncode != 0:
            raise SystemExit(f"failed: {argv}: {p.stderr}")
    return (best, cpu), p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="64:10:8,256:50:32,512:100:64,512:100:64:16",
                    help="d:|Sigma|:Delta[:heads],...")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    load = os.getloadavg()[0]
    rows = []
    for spec in args.sizes.split(","):
        d, sigma, delta, *h = map(int, spec.split(":"))
        heads = h[0] if h else 1
        path = tmp / f"m{d}-{heads}.json"
        path.write_text(json.dumps(model_dict(d, sigma, delta, d, heads=heads)))
        base, _ = wall([sys.executable, "-c", f"import numpy, json; json.load(open({str(path)!r}))"], args.repeat)
        t, out = wall([sys.executable, "-m", "bounds.estimate", "--model", str(path), "--json"], args.repeat)
        r = json.loads(out)
        name = f"d={d}, |Sigma|={sigma}, Delta={delta}, {heads} head(s)"
        rows.append((f"{name}, JSON ({path.stat().st_size / 1e6:.1f} MB)", r["mode"], t,
                     base, r["N"] if isinstance(r["N"], int) else f"2^{r['N']['pow2_exponent_float']:.4g}"))
        npz = path.with_suffix(".npz")
        convert, _ = wall([sys.executable, "-m", "bounds.estimate", "--model", str(path), "--save-npz", str(npz)], 1)
        base, _ = wall([sys.executable, "-c", f"import numpy; z = numpy.load({str(npz)!r}); [z[k] for k in z.files]"],
                       args.repeat)
        t, out = wall([sys.executable, "-m", "bounds.estimate", "--model", str(npz), "--json"], args.repeat)
        r_npz = json.loads(out)
        same = {k: v for k, v in r_npz.items() if k != "source"} == {k: v for k, v in r.items() if k != "source"}
        if not same:
            raise SystemExit(f"{npz}: the estimate differs from the JSON file's")
        rows.append((f"{name}, .npz ({npz.stat().st_size / 1e6:.1f} MB; converted in {convert[0]:.1f} s; "
                     "output identical)", r_npz["mode"], t, base,
                     r_npz["N"] if isinstance(r_npz["N"], int) else f"2^{r_npz['N']['pow2_exponent_float']:.4g}"))
    f, g = tmp / "f.json", tmp / "g.json"
    f.write_text(json.dumps(model_dict(8, 3, 4, 8, seed=1)))
    g.write_text(json.dumps(model_dict(8, 3, 4, 8, seed=2)))
    base, _ = wall([sys.executable, "-c", f"import numpy, json; json.load(open({str(f)!r}))"], args.repeat)
    t, out = wall([sys.executable, "-m", "bounds.estimate", "--model", str(f), "--against", str(g), "--mode",
                   "exact", "--json"], args.repeat)
    r = json.loads(out)
    rows.append(("pair, |Sigma| Delta = 12 classes, tau = 2, d = 8 (exact mode)", r["mode"], t, base,
                 r["N"] if isinstance(r["N"], int) else f"2^{r['N']['pow2_exponent_float']:.4g}"))
    true_code = ("import random, sys; from counterexamples.izzo.search import Spec, GROUPS, build, draw_group, "
                 "perturb; from bounds.true_threshold import true_threshold; rng = random.Random(0); "
                 "draw = lambda lo, hi: rng.randint(lo, hi); s = Spec(3, 4, 2); "
                 "s.params = {k: draw_group(draw, s, k) for k in GROUPS}; f = build(s, 'f'); "
                 "g = f if sys.argv[2] == 'self' else build(perturb(draw, s), 'g'); "
                 "t = true_threshold(f, g, 0, 1/10, int(sys.argv[1])); "
                 "print(sum(r.configurations for r in t.rows), t.exact)")
    base, _ = wall([sys.executable, "-c", "import numpy"], args.repeat)
    for L, which in ((9, "self"), (10, "self"), (10, "pair")):
        t, out = wall([sys.executable, "-c", true_code, str(L), which], args.repeat)
        configs, exact = out.split()
        rows.append((f"true threshold, 12 classes, tau = 2, every input up to length {L} "
                     f"({configs} configurations, {'f vs f' if which == 'self' else 'f vs g'})", "exact", t, base,
                     f"true = {exact}"))
    print(f"load average {load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end of the table's runs\n")
    print(f"| model | mode | estimate wall / CPU (s, best of {args.repeat}) | baseline python + numpy + reading the "
          "file (json.load / numpy.load) wall / CPU (s) | CPU ratio | N |")
    print("|---|---|---|---|---|---|")
    for name, mode, t, b, n in rows:
        print(f"| {name} | {mode} | {t[0]:.2f} / {t[1]:.2f} | {b[0]:.2f} / {b[1]:.2f} | {t[1] / b[1]:.1f} | {n} |")
    startup(args.repeat)


def startup(repeat: int) -> None:
    """``--task modp`` against ``import numpy``, each a fresh interpreter, best CPU of ``repeat``: first with the
    project's bytecode compiled (what every run after the first sees), then without it (bytecode neither read
    nor written for the project: what an environment with ``PYTHONDONTWRITEBYTECODE`` sees on every run)."""
    import shutil

    numpy_ = [sys.executable, "-c", "import numpy"]
    modp = [sys.executable, "-m", "bounds.estimate", "--task", "modp"]
    print(f"\nstart-up, best of {repeat} (load average {os.getloadavg()[0]:.2f}): wall / CPU seconds")
    before = {p for p in ROOT.rglob("__pycache__") if ".git" not in p.parts}
    subprocess.run([sys.executable, "-m", "compileall", "-q", "bounds", "constructions", "lengthgen_cli"],
                   cwd=ROOT, capture_output=True, check=True)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    for label in ("project bytecode compiled", "no project bytecode"):
        if label.startswith("no"):
            for p in {p for p in ROOT.rglob("__pycache__") if ".git" not in p.parts} - before:
                shutil.rmtree(p)  # only the caches compileall wrote above
        base, _ = wall(numpy_, repeat, env)
        est, _ = wall(modp, repeat, env)
        print(f"  {label}: import numpy {base[0]:.3f} / {base[1]:.3f};  bounds.estimate --task modp "
              f"{est[0]:.3f} / {est[1]:.3f};  CPU ratio {est[1] / base[1]:.2f} (target < 2)")


if __name__ == "__main__":
    main()

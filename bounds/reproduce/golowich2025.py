"""Golowich et al. §5 reproduced: sparse parity (Figures 1/7) and parity with scratchpad and predictive position
coupling (Figures 2/8), with the Theorem 4.3 sparsity threshold printed beside the measurements.

``python -m bounds.reproduce golowich2025 --experiment sparse-parity|scratchpad --preset quick|paper ...``

* **sparse-parity**: one model per ``K_train`` (``k ~ Unif{1..K_train}``, ``2l`` in ``[20, 50]``), GPT-NeoX with
  RoPE and PoSE position ids in training (App. E); accuracy of the final (parity) token per ``k_test`` and
  test length ``2l``.  Data: :func:`constructions.tasks.golowich2025.sparse_parity`.
* **scratchpad**: one model per (jump ``j``, scheme): ``coupled`` = predictive position coupling (APE GPT-2
  fed the coupled ids, a second head predicts the next id, all ids shifted by a uniform offset in training,
  §5.2), ``shifted-ape`` = no coupling, absolute positions ``0..n-1`` shifted by a random offset (Figure 8a).
  Metric (Figure 2): the whole scratchpad right, tokens *and* predicted position ids.

Evaluation is teacher-forced, which is exact for this metric: greedy decoding reproduces the true continuation
iff the argmax token (and, with coupling, the argmax next id, which is what greedy decoding would feed back)
is right at every supervised position, because up to the first error both decoders see the same inputs.

**Theory beside it.**  Theorem 4.3 needs ``L >= 4 L_local`` (the side condition as the package checks it,
``counterexamples.golowich.search``), and locality needs ``L_local >= span(S*)``; the planted set of sparse
parity is the ``2k`` tokens of the marked pairs, whose smallest span is ``2k - 1``
(``constructions.golowich.model.span``).  So the theorem can cover training sparsity ``k`` only if
``4 (2k - 1) <= L``: :func:`theorem43_max_k` (``L = 50`` gives ``k <= 6``).  The paper's own reading,
"``K_train <= L/4``", is printed too.  The package records Theorem 4.3 as refuted as stated
(``golowich2025:thm4.3``); the threshold is the theorem's hypothesis, not a guarantee.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field

from lengthgen_cli import command

EXPERIMENTS = ("sparse-parity", "scratchpad")
PROG = "bounds.reproduce golowich2025"




class UsageError(ValueError):
    """A bad command line (one line, exit 2)."""


# ------------------------------------------------------------------------------------------------- theory
def theorem43_max_k(L: int) -> int:
    """The largest sparsity k with ``L >= 4 L_local`` for ``L_local`` = the smallest span of a planted set of
    ``2k`` tokens (module docstring); 0 if none."""
    from constructions.golowich.model import span

    k = 0
    while L >= 4 * span(tuple(range(1, 2 * (k + 1) + 1))):
        k += 1
    return k


# ------------------------------------------------------------------------------------------------ presets
@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    cells: tuple  # sparse-parity: K_train values; scratchpad: (jump, scheme) pairs
    arch: dict
    seeds: int
    batch: int
    max_steps: int
    lr: float
    loss_target: float
    test_samples: int
    test_lengths: tuple  # sparse parity: 2l values; scratchpad: l values
    k_test: tuple = ()
    train_range: tuple = (20, 50)  # 2l (sparse parity) / l (scratchpad)
    L_max: int = 210
    N: int = 20
    extra: dict = field(default_factory=dict)


_SMALL = {"n_layer": 2, "n_head": 2, "d_model": 64}
_PAPER_ARCH = {"n_layer": 12, "n_head": 16, "d_model": 1024}
PRESETS = {
    "sparse-parity": {
        "quick": Preset("quick", "K_train in {1, 2}, 2-layer d = 64 RoPE+PoSE, 3 seeds, 600 steps (CPU)",
                        (1, 2), _SMALL, 3, 32, 600, 1e-3, 1e-3, 100, (20, 50, 100, 200),
                        k_test=(1, 2, 4, 6, 8)),
        "paper": Preset("paper", "Table 2: K_train in {4..12}, 12L/16H/d1024, 50k steps, 512 test points (GPU)",
                        (4, 6, 8, 10, 12), _PAPER_ARCH, 1, 64, 50000, 5e-5, 0.0, 512,
                        (20, 50, 100, 200, 300, 400, 500), k_test=(4, 6, 8, 10, 12, 14, 16), L_max=510),
    },
    "scratchpad": {
        "quick": Preset("quick", "jump 1 with and without predictive coupling, 2-layer d = 64, 2 seeds, 600 steps, "
                        "lr 3e-3 (CPU)", ((1, "coupled"), (1, "shifted-ape")),
                        _SMALL, 2, 32, 600, 3e-3, 1e-3, 100, (12, 20, 40, 60, 96), train_range=(5, 20)),
        "paper": Preset("paper", "Table 3: jumps 1-4, coupled and the shifted-APE ablation, 12L/16H/d1024, "
                        "50k steps, 192 test points, 10 runs (the paper ran the ablation with 3) (GPU)",
                        tuple((j, s) for s in ("coupled", "shifted-ape") for j in (1, 2, 3, 4)), _PAPER_ARCH,
                        10, 64, 50000, 5e-5, 0.0, 192, (12, 24, 48, 72, 96), train_range=(5, 20)),
    },
}


# ---------------------------------------------------------------------------------------------- run: SP
def run_sparse_parity(K_train: int, arch: dict, seeds: list[int], config: dict, device: str = "auto",
                      threads: int | None = 1, progress=None) -> dict:
    """Train on ``k ~ Unif{1..K_train}`` with RoPE+PoSE; test every (k_test, 2l)."""
    import numpy as np
    import torch

    from bounds.training.decoders import ModelSpec, build_model, pose_position_ids
    from bounds.training.loop import default_device
    from bounds.training.sequences import collate, exact_match, train_sequences
    from constructions.tasks.golowich2025 import sparse_parity, sparse_parity_vocab, training_lengths

    if threads:
        torch.set_num_threads(threads)
    device = default_device() if device == "auto" else device
    t0 = time.perf_counter()
    N, L_max = config["N"], config["L_max"]
    vocab = {t: i for i, t in enumerate(sparse_parity_vocab(N))}
    spec = ModelSpec("rope", arch["n_layer"], arch["n_head"], arch["d_model"], len(vocab), L_max)
    lo, hi = config["train_range"]

    def encode(ex, positions):
        tokens = [vocab[t] for t in ex.tokens]
        targets = [-1] * (len(tokens) - 1) + [vocab[ex.label]]
        return tokens, positions, targets

    def draw(rng):
        k = int(rng.integers(1, K_train + 1))
        ell = int(rng.choice(training_lengths(k, lo, hi)))
        ex = sparse_parity(ell, k, N, rng)
        return encode(ex, pose_position_ids([len(ex.tokens)], L_max, rng)[0])

    result = train_sequences(lambda: build_model(spec), draw, seeds, config["batch"], config["lr"],
                             config["max_steps"], config["loss_target"], device, progress=progress)
    rng = np.random.default_rng([54321, 3])
    grid = {}
    for k in config["k_test"]:
        for two_ell in config["test_lengths"]:
            ell = two_ell // 2
            if not k < ell:
                continue
            exs = [sparse_parity(ell, k, N, rng) for _ in range(config["test_samples"])]
            x, y = collate([encode(e, list(range(len(e.tokens)))) for e in exs])
            grid[f"{k},{two_ell}"] = exact_match(result, x, y)
    return {"experiment": "sparse-parity", "K_train": K_train, "arch": arch, "seeds": list(seeds),
            "accuracy": grid, "steps": result.steps, "final_loss": result.final_loss,
            "train_seconds": round(result.seconds, 2), "seconds": round(time.perf_counter() - t0, 2),
            "device": result.device}


# ---------------------------------------------------------------------------------------------- run: SC
def _coupled_loss(out, x, y, y_pos):
    """Token cross-entropy plus next-position-id cross-entropy on the supervised positions (per model)."""
    from bounds.training.sequences import masked_loss

    return masked_loss(out[0], x, y) + masked_loss(out[1], x, y_pos)


def run_scratchpad(jump: int, scheme: str, arch: dict, seeds: list[int], config: dict, device: str = "auto",
                   threads: int | None = 1, progress=None) -> dict:
    """Parity with a jump-``jump`` scratchpad, ``scheme`` = ``coupled`` (PPC) or ``shifted-ape``."""
    import numpy as np
    import torch

    from bounds.training.decoders import ModelSpec, build_model
    from bounds.training.loop import default_device
    from bounds.training.sequences import IGNORE, collate, exact_match, train_sequences
    from constructions.tasks.golowich2025 import parity_scratchpad, scratchpad_vocab

    if scheme not in ("coupled", "shifted-ape"):
        raise UsageError(f"unknown scheme {scheme!r}")
    if threads:
        torch.set_num_threads(threads)
    device = default_device() if device == "auto" else device
    t0 = time.perf_counter()
    L_max = config["L_max"]
    vocab = {t: i for i, t in enumerate(scratchpad_vocab())}
    coupled = scheme == "coupled"
    spec = ModelSpec("coupled" if coupled else "ape", arch["n_layer"], arch["n_head"], arch["d_model"], len(vocab),
                     L_max)
    lo, hi = config["train_range"]
    train_ells = [ell for ell in range(lo, hi + 1) if ell % jump == 0]

    def encode(ex, shift):
        tokens = [vocab[t] for t in ex.tokens]
        n = len(tokens)
        ids = [i + shift for i in (ex.coupled_ids if coupled else range(n))]
        targets = [tokens[i + 1] if ex.answer_from <= i < n - 1 else IGNORE for i in range(n)]
        pos_targets = [ids[i + 1] if ex.answer_from <= i < n - 1 else IGNORE for i in range(n)]
        return tokens, ids, targets, pos_targets

    def collate4(examples):
        x, y = collate([e[:3] for e in examples])
        _, yp = collate([(e[0], e[1], e[3]) for e in examples])
        return x, y, yp

    def draw(rng):
        ex = parity_scratchpad(int(rng.choice(train_ells)), jump, rng)
        top = max(ex.coupled_ids) if coupled else len(ex.tokens) - 1
        return encode(ex, int(rng.integers(0, L_max - top)))

    extra = {"loss": _coupled_loss, "collate_fn": collate4} if coupled else {}
    result = train_sequences(lambda: build_model(spec), draw if coupled else (lambda r: draw(r)[:3]), seeds,
                             config["batch"], config["lr"], config["max_steps"], config["loss_target"], device,
                             progress=progress, **extra)
    rng = np.random.default_rng([54321, 4])
    acc = {}
    for ell in config["test_lengths"]:
        if ell % jump:
            continue
        x, y, yp = collate4([encode(parity_scratchpad(ell, jump, rng), 0) for _ in range(config["test_samples"])])
        if x[:, 1].max() >= L_max:
            continue
        acc[str(ell)] = exact_match(result, x, y, yp if coupled else None)
    return {"experiment": "scratchpad", "jump": jump, "scheme": scheme, "arch": arch, "seeds": list(seeds),
            "accuracy": acc, "steps": result.steps, "final_loss": result.final_loss,
            "train_seconds": round(result.seconds, 2), "seconds": round(time.perf_counter() - t0, 2),
            "device": result.device}



# ------------------------------------------------------------------------------------------------ summary
def summarize(experiment: str, records: list[dict], preset: Preset) -> dict:
    """Mean (and per-seed) accuracy per cell; the Theorem 4.3 threshold beside sparse parity."""
    import numpy as np

    rows = []
    for rec in records:
        cell = {"accuracy_mean": {k: round(float(np.mean(v)), 4) for k, v in rec["accuracy"].items()},
                "per_seed": rec["accuracy"], "seconds": rec["seconds"], "steps": rec["steps"]}
        if experiment == "sparse-parity":
            cell["K_train"] = rec["K_train"]
        else:
            cell.update(jump=rec["jump"], scheme=rec["scheme"])
        rows.append(cell)
    key = (lambda r: r["K_train"]) if experiment == "sparse-parity" else (lambda r: (r["scheme"], r["jump"]))
    rows.sort(key=key)
    L = preset.train_range[1]
    out = {"experiment": f"golowich2025:{'fig1' if experiment == 'sparse-parity' else 'fig2'}",
           "name": experiment, "preset": preset.name, "description": preset.description,
           "config": {k: v for k, v in dataclasses.asdict(preset).items() if k not in ("name", "description")},
           "rows": rows, "wall_seconds": round(sum(r["seconds"] for r in rows), 1)}
    done = {r["K_train"] if experiment == "sparse-parity" else (r["jump"], r["scheme"]) for r in rows}
    out["missing"] = [str(c) for c in preset.cells if (c if experiment == "sparse-parity" else tuple(c)) not in done]
    if experiment == "sparse-parity":
        out["theory"] = {"max_train_length_tokens": L, "thm43_max_k": theorem43_max_k(L),
                         "paper_reading_K_le_L_over_4": L // 4,
                         "note": "Theorem 4.3's side condition L >= 4 L_local with L_local >= 2k - 1 (smallest span "
                                 "of the planted pairs); the theorem is refuted as stated (golowich2025:thm4.3)"}
    return out


def table(summary: dict) -> str:
    rows = summary["rows"]
    cols = list(dict.fromkeys(c for r in rows for c in r["accuracy_mean"]))
    if summary["name"] == "sparse-parity":
        th = summary["theory"]
        lines = [f"Theorem 4.3 threshold: k <= {th['thm43_max_k']} (L = {th['max_train_length_tokens']}; "
                 f"paper's reading K_train <= L/4 = {th['paper_reading_K_le_L_over_4']})", "",
                 "| K_train | within thm 4.3 | k_test | " + " | ".join(f"2l={c}" for c in
                                                               sorted({int(c.split(',')[1]) for c in cols})) + " |"]
        lengths = sorted({int(c.split(",")[1]) for c in cols})
        lines.append("|---" * (3 + len(lengths)) + "|")
        for r in rows:
            for k in sorted({int(c.split(",")[0]) for c in r["accuracy_mean"]}):
                vals = [r["accuracy_mean"].get(f"{k},{n}") for n in lengths]
                lines.append(f"| {r['K_train']} | {'yes' if r['K_train'] <= th['thm43_max_k'] else 'no'} | {k}"
                             f"{' (> K_train)' if k > r['K_train'] else ''} | "
                             + " | ".join("-" if v is None else f"{100 * v:.1f}" for v in vals) + " |")
    else:
        lengths = sorted({int(c) for c in cols})
        lines = []
        lines += ["| scheme | jump k | " + " | ".join(f"l={n}" for n in lengths) + " |",
                  "|---" * (2 + len(lengths)) + "|"]
        for r in rows:
            vals = [r["accuracy_mean"].get(str(n)) for n in lengths]
            lines.append(f"| {r['scheme']} | {r['jump']} | "
                         + " | ".join("-" if v is None else f"{100 * v:.1f}" for v in vals) + " |")
    if summary["missing"]:
        lines.append(f"\nnot run (no record): {', '.join(summary['missing'])}")
    return "\n".join(lines)


def figure(summary: dict):
    """Accuracy against test length per cell (not saved); None without rows."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summary["rows"]
    if not rows:
        return None
    fig, axes = plt.subplots(1, len(rows), figsize=(4 * len(rows), 3.4), sharey=True, squeeze=False)
    for ax, r in zip(axes[0], rows, strict=True):
        if summary["name"] == "sparse-parity":
            for k in sorted({int(c.split(",")[0]) for c in r["accuracy_mean"]}):
                pts = sorted((int(c.split(",")[1]), v) for c, v in r["accuracy_mean"].items()
                             if int(c.split(",")[0]) == k)
                ax.plot(*zip(*pts, strict=True), marker="o", label=f"k={k}", ls="--" if k > r["K_train"] else "-")
            th = summary["theory"]["thm43_max_k"]
            ax.set_title(f"K_train={r['K_train']} ({'<=' if r['K_train'] <= th else '>'} thm 4.3 k={th})")
            ax.axvline(summary["config"]["train_range"][1], color="grey", lw=0.8)
            ax.set_xlabel("test length 2l")
        else:
            pts = sorted((int(c), v) for c, v in r["accuracy_mean"].items())
            ax.plot(*zip(*pts, strict=True), marker="o")
            ax.axvline(summary["config"]["train_range"][1], color="grey", lw=0.8)
            ax.set_title(f"{r['scheme']}, jump {r['jump']}")
            ax.set_xlabel("input length l")
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=7) if summary["name"] == "sparse-parity" else None
    axes[0][0].set_ylabel("accuracy")
    return fig


def plot(summary: dict, json_path: str) -> list[str]:
    """Draw :func:`figure` beside its results file (same stem, PNG + SVG, arrays embedded)."""
    from bounds.figure_data import save

    fig = figure(summary)
    return [] if fig is None else save(fig, os.path.splitext(json_path)[0], os.path.basename(json_path), dpi=110)


# -------------------------------------------------------------------------------------------------- CLI
def specs(experiment: str, preset: Preset, device: str, threads: int | None):
    from bounds.training.executor import RunSpec

    cfg = {k: v for k, v in dataclasses.asdict(preset).items()
           if k in ("batch", "max_steps", "lr", "loss_target", "test_samples", "test_lengths", "k_test",
                    "train_range", "L_max", "N")}
    cfg = {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()}
    import hashlib
    import json

    digest = hashlib.sha256(json.dumps([preset.arch, cfg], sort_keys=True).encode()).hexdigest()[:10]
    base = f"golowich2025/{experiment}/{preset.name}/seeds={preset.seeds}/cfg={digest}"
    out = []
    for cell in preset.cells:
        common = {"arch": dict(preset.arch), "seeds": list(range(preset.seeds)), "config": cfg, "device": device,
                  "threads": threads}
        if experiment == "sparse-parity":
            out.append(RunSpec(f"{base}/K_train={cell}", "bounds.reproduce.golowich2025:run_sparse_parity",
                               {"K_train": cell, **common}))
        else:
            out.append(RunSpec(f"{base}/jump={cell[0]}/{cell[1]}", "bounds.reproduce.golowich2025:run_scratchpad",
                               {"jump": cell[0], "scheme": cell[1], **common}))
    return out


def _parser():
    from bounds.reproduce.options import add_budget_options, add_run_options
    from lengthgen_cli import Parser

    ap = Parser(prog=f"python -m {PROG}", description=__doc__.split("\n\n")[0])
    ap.add_argument("--experiment", choices=EXPERIMENTS, required=True, help="Figures 1/7 or Figures 2/8")
    ap.add_argument("--preset", choices=("quick", "paper"), default="quick",
                    help="quick: small CPU models; paper: the paper's sizes (GPU)")
    ap.add_argument("--cells", help="subset of the preset's cells: K_train values (sparse-parity, e.g. 2,4) or "
                                    "jump:scheme pairs (scratchpad, e.g. 1:coupled,2:shifted-ape)")
    add_budget_options(ap, "point")
    add_run_options(ap, "runs/golowich2025-<experiment>-<preset>")
    return ap


def _cells(experiment: str, text: str) -> tuple:
    out = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        try:
            if experiment == "sparse-parity":
                cell = int(part)
                ok = cell >= 1
            else:
                jump, scheme = part.split(":")
                cell = (int(jump), scheme)
                ok = cell[0] >= 1 and scheme in ("coupled", "shifted-ape")
        except ValueError:
            ok = False
        if not ok:
            form = "a positive K_train" if experiment == "sparse-parity" else "jump:coupled or jump:shifted-ape"
            raise UsageError(f"bad cell {part!r}: expected {form}")
        out.append(cell)
    return tuple(out)


def run(args) -> int:
    from bounds.training.executor import SweepError, load_records, record_path, run_specs, write_atomic
    from bounds.training.progress import SweepProgress

    preset = PRESETS[args.experiment][args.preset]
    changes = {k: v for k, v in (("seeds", args.seeds), ("max_steps", args.steps),
                                 ("test_samples", args.test_samples)) if v is not None}
    if args.cells:
        changes["cells"] = _cells(args.experiment, args.cells)
    preset = dataclasses.replace(preset, **changes)
    name = f"golowich2025-{args.experiment}-{preset.name}"
    runs_dir = args.runs or os.path.join("runs", name)
    todo = specs(args.experiment, preset, args.device, args.threads)
    left = [s for s in todo if not os.path.exists(record_path(runs_dir, s))]
    if not args.summarize_only:
        prog = SweepProgress(len(todo), len(todo) - len(left), desc=f"golowich2025 {args.experiment} {preset.name}")
        try:
            run_specs(todo, runs_dir, executor=args.executor, workers=args.workers, on_record=prog.record_done,
                      on_steps=prog.steps)
        except SweepError as e:
            raise UsageError(str(e)) from None
        finally:
            prog.close()
    records = [r["record"] for r in load_records(runs_dir, todo)] if os.path.isdir(runs_dir) else []
    summary = summarize(args.experiment, records, preset)
    os.makedirs(args.results_dir, exist_ok=True)
    path = os.path.join(args.results_dir, f"{name}.json")
    write_atomic(path, summary)
    text = table(summary)
    with open(os.path.join(args.results_dir, f"{name}.md"), "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    print(text)
    if not args.no_plot:
        for p in plot(summary, path):
            print(f"wrote {p}")
    print(f"wrote {path}")
    return 0


@command
def main(argv=None) -> int:
    from constructions.tasks.errors import TaskError
    from lengthgen_cli import usage_errors

    ap = _parser()
    args = ap.parse_args(argv)
    with usage_errors(ap, UsageError, TaskError):
        return run(args)

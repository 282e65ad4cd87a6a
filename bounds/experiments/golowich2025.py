"""Golowich et al. §5 reproduced: sparse parity (Figures 1/7) and parity with scratchpad and predictive position
coupling (Figures 2/8), with the Theorem 4.3 sparsity threshold printed beside the measurements.

``python -m bounds.experiments.reproduce golowich2025 --experiment sparse-parity|scratchpad --preset quick|paper ...``

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
PROG = "bounds.experiments.reproduce golowich2025"




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


def scratchpad_planted_spans(ell: int, jump: int, coupled: bool) -> list[int]:
    """For each scratchpad token of a length-``ell`` example: the span (max - min) of the tokens its value depends
    on, the input bits ``b_{j(i-1)+1} .. b_{ji}`` and the previous scratchpad token (``<SEP>`` for the first),
    measured in coupled position ids (``coupled``; tokens with one id are one coupled token, Golowich Def. 4.1
    and App. D) or in sequence positions.  Read off :func:`constructions.tasks.golowich2025.parity_scratchpad`."""
    import numpy as np

    from constructions.golowich.model import span
    from constructions.tasks.golowich2025 import parity_scratchpad

    ex = parity_scratchpad(ell, jump, np.random.default_rng(0))  # positions and ids do not depend on the bits
    coord = ex.coupled_ids if coupled else range(len(ex.tokens))
    coord = list(coord)
    sep = ex.answer_from
    out = []
    for i in range(1, ell // jump + 1):
        deps = [*range(jump * (i - 1) + 1, jump * i + 1), sep + i - 1]  # input bits (index = bit number), previous
        out.append(span(tuple(sorted({coord[d] for d in deps}))))
    return out


def scratchpad_prediction(jump: int, scheme: str, train_range: tuple, test_lengths) -> dict:
    """The theory's prediction for one scratchpad cell.  Each scratchpad token depends on ``jump + 1`` tokens
    (sparsity, takeaway T1).  Locality (Assumption 3.3, T2) asks for one ``L_local`` bounding the span of those
    tokens at every length: with predictive position coupling the span in coupled ids is the same at every
    length (Proposition 4.4 / D.2 then give length generalization when ``L >= 4 L_local``, ``L`` the largest
    training id); without coupling it grows with the length, so no ``L_local`` fixed by training covers longer
    inputs and length generalization is not predicted.  Spans from :func:`scratchpad_planted_spans`."""
    coupled = scheme == "coupled"
    lo, hi = train_range
    train = [ell for ell in range(lo, hi + 1) if ell % jump == 0]
    longest = max((ell for ell in test_lengths if ell % jump == 0), default=hi)
    span_train = max(max(scratchpad_planted_spans(ell, jump, coupled)) for ell in train)
    span_test = max(scratchpad_planted_spans(max(longest, max(train)), jump, coupled))
    L = max(train) // jump if coupled else 2 + max(train) + max(train) // jump
    local = span_test <= span_train
    ok = local and L >= 4 * max(span_train, 1)
    why = (f"sparsity {jump + 1}; span of the planted tokens in {'coupled ids' if coupled else 'positions'}: "
           f"{span_train} at the training lengths, {span_test} at length {max(longest, max(train))}; ")
    why += (f"local, L = {L} >= 4 L_local = {4 * max(span_train, 1)}: Proposition 4.4 predicts length generalization"
            if ok else ("not local (the span grows with the length): no length generalization predicted" if not local
                        else f"local but L = {L} < 4 L_local = {4 * max(span_train, 1)}: outside Theorem 4.3's hypothesis"))
    return {"predicted": ok, "sparsity": jump + 1, "span_train": span_train, "span_test": span_test, "L": L,
            "local": local, "basis": why}


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
    weight_decay: float = 0.0
    warmup: int = 0
    fit: float = 0.95  # a seed fits if its accuracy is >= fit at every in-distribution test point
    generalizes: float = 0.8  # a cell generalizes if its fitted seeds' mean is >= this beyond training
    extra: dict = field(default_factory=dict)
    cell_steps: tuple = ()  # (cell, step budget) pairs: cells whose budget is not max_steps

    def steps(self, cell) -> int:
        """The step budget of ``cell``: its own where ``cell_steps`` names it, else ``max_steps``."""
        return dict((c if isinstance(c, int) else tuple(c), n) for c, n in self.cell_steps).get(cell, self.max_steps)


_SMALL = {"n_layer": 2, "n_head": 2, "d_model": 64}
_PAPER_ARCH = {"n_layer": 12, "n_head": 16, "d_model": 1024}
PRESETS = {
    "sparse-parity": {
        "quick": Preset("quick", "K_train in {1, 2}, 2-layer d = 64 RoPE+PoSE, 3 seeds, 600 steps (CPU)",
                        (1, 2), _SMALL, 3, 32, 600, 1e-3, 1e-3, 100, (20, 50, 100, 200),
                        k_test=(1, 2, 4, 6, 8)),
        # K_train = 2 sits on its loss plateau past 4000 steps (docs/reproduce_trained.md, learning curves)
        "cpu": Preset("cpu", "K_train in {1, 2}, 2-layer d = 64 RoPE+PoSE, 2 seeds, batch 32, 4000 steps (16000 for "
                      "K_train = 2), lr 1e-3 (warm-up 200, cosine, weight decay 0.1), 128 test points (2-core CPU)",
                      (1, 2), _SMALL, 2, 32, 4000, 1e-3, 1e-3, 128, (20, 50, 100, 200),
                      k_test=(1, 2, 4, 6, 8), weight_decay=0.1, warmup=200, cell_steps=((2, 16000),)),
        "paper": Preset("paper", "Table 2: K_train in {4..12}, 12L/16H/d1024, 50k steps, 512 test points (GPU)",
                        (4, 6, 8, 10, 12), _PAPER_ARCH, 1, 64, 50000, 5e-5, 0.0, 512,
                        (20, 50, 100, 200, 300, 400, 500), k_test=(4, 6, 8, 10, 12, 14, 16), L_max=510),
    },
    "scratchpad": {
        "quick": Preset("quick", "jump 1 with and without predictive coupling, 2-layer d = 64, 2 seeds, 600 steps, "
                        "lr 3e-3 (CPU)", ((1, "coupled"), (1, "shifted-ape")),
                        _SMALL, 2, 32, 600, 3e-3, 1e-3, 100, (12, 20, 40, 60, 96), train_range=(5, 20)),
        "cpu": Preset("cpu", "jumps 1, 2 with and without predictive coupling, 2-layer d = 64, 2 seeds, batch 32, "
                      "3000 steps, lr 1e-3 (warm-up 100, cosine, weight decay 0.1), L_max 100, 128 test points "
                      "(2-core CPU)", ((1, "coupled"), (1, "shifted-ape"), (2, "coupled"), (2, "shifted-ape")),
                      _SMALL, 2, 32, 3000, 1e-3, 1e-3, 128, (12, 20, 40, 60, 96), train_range=(5, 20), L_max=100,
                      weight_decay=0.1, warmup=100),
        "paper": Preset("paper", "Table 3: jumps 1-4, coupled and the shifted-APE ablation, 12L/16H/d1024, "
                        "50k steps, 192 test points, 10 runs (the paper ran the ablation with 3) (GPU)",
                        tuple((j, s) for s in ("coupled", "shifted-ape") for j in (1, 2, 3, 4)), _PAPER_ARCH,
                        10, 64, 50000, 5e-5, 0.0, 192, (12, 24, 48, 72, 96), train_range=(5, 20)),
    },
}


# App. E (Tables 2, 3): GPT-NeoX 12 layers, 16 heads, d = 1024; AdamW lr 5e-5, weight decay 0.1, linear schedule
# with 300 warm-up steps; batch 64, 50,000 steps
PAPER_TRAINING = {"n_layer": 12, "n_head": 16, "d_model": 1024, "lr": 5e-5, "weight_decay": 0.1, "warmup": 300,
                  "batch": 64, "max_steps": 50000}


def deviations(experiment: str, arch: dict, config: dict, seeds: int) -> list[str]:
    """Every way a run differs from App. E's settings (Tables 2 and 3) for ``experiment``."""
    paper = PRESETS[experiment]["paper"]
    have = {**{k: arch[k] for k in ("n_layer", "n_head", "d_model")}, "lr": config["lr"],
            "weight_decay": config.get("weight_decay", 0.0), "warmup": config.get("warmup", 0),
            "batch": config["batch"], "max_steps": config["max_steps"]}
    out = [f"{k} = {v} (App. E: {PAPER_TRAINING[k]})" for k, v in have.items() if v != PAPER_TRAINING[k]]
    out.append(f"cosine schedule{', early stop at running loss ' + str(config['loss_target']) if config['loss_target'] else ''}"
               " (App. E: linear schedule, no early stop)")
    for k in ("test_samples", "L_max"):
        if config[k] != getattr(paper, k):
            out.append(f"{k} = {config[k]} (App. E: {getattr(paper, k)})")
    if tuple(config["test_lengths"]) != tuple(paper.test_lengths):
        out.append(f"test lengths {list(config['test_lengths'])} (App. E: up to {max(paper.test_lengths)})")
    if experiment == "sparse-parity" and tuple(config.get("k_test", ())) != tuple(paper.k_test):
        out.append(f"k_test {list(config['k_test'])} (App. E figures: {list(paper.k_test)})")
    if seeds != paper.seeds:
        out.append(f"{seeds} seed(s) per cell (App. E: {paper.seeds})")
    if arch.get("activation"):
        out.append(f"activation {arch['activation']} (GPT-NeoX: gelu)")
    if experiment == "scratchpad":
        out.append("GPT-2 body with learned absolute positions for both schemes (App. E: GPT-NeoX with absolute "
                   "position embeddings)")
    return out


# ---------------------------------------------------------------------------------------------- run: SP
def run_sparse_parity(K_train: int, arch: dict, seeds: list[int], config: dict, device: str = "auto",
                      threads: int | None = 1, progress=None) -> dict:
    """Train on ``k ~ Unif{1..K_train}`` with RoPE+PoSE; test every (k_test, 2l)."""
    import numpy as np
    import torch

    from bounds.experiments.training.decoders import ModelSpec, build_model, pose_position_ids
    from bounds.experiments.training.loop import default_device
    from bounds.experiments.training.sequences import collate, exact_match, train_sequences
    from constructions.tasks.golowich2025 import sparse_parity, sparse_parity_vocab, training_lengths

    if threads:
        torch.set_num_threads(threads)
    device = default_device() if device == "auto" else device
    t0 = time.perf_counter()
    N, L_max = config["N"], config["L_max"]
    vocab = {t: i for i, t in enumerate(sparse_parity_vocab(N))}
    spec = ModelSpec("rope", arch["n_layer"], arch["n_head"], arch["d_model"], len(vocab), L_max, arch.get("activation"))
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
                             config["max_steps"], config["loss_target"], device, progress=progress,
                             weight_decay=config.get("weight_decay", 0.0), warmup=config.get("warmup", 0))
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
            "accuracy": grid, "steps": result.steps, "final_loss": result.final_loss, "history": result.history,
            "train_seconds": round(result.seconds, 2), "seconds": round(time.perf_counter() - t0, 2),
            "device": result.device, "deviations": deviations("sparse-parity", arch, config, len(seeds))}


# ---------------------------------------------------------------------------------------------- run: SC
def _coupled_loss(out, x, y, y_pos):
    """Token cross-entropy plus next-position-id cross-entropy on the supervised positions (per model)."""
    from bounds.experiments.training.sequences import masked_loss

    return masked_loss(out[0], x, y) + masked_loss(out[1], x, y_pos)


def run_scratchpad(jump: int, scheme: str, arch: dict, seeds: list[int], config: dict, device: str = "auto",
                   threads: int | None = 1, progress=None) -> dict:
    """Parity with a jump-``jump`` scratchpad, ``scheme`` = ``coupled`` (PPC) or ``shifted-ape``."""
    import numpy as np
    import torch

    from bounds.experiments.training.decoders import ModelSpec, build_model
    from bounds.experiments.training.loop import default_device
    from bounds.experiments.training.sequences import IGNORE, collate, exact_match, train_sequences
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
                     L_max, arch.get("activation"))
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
                             progress=progress, weight_decay=config.get("weight_decay", 0.0),
                             warmup=config.get("warmup", 0), **extra)
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
            "accuracy": acc, "steps": result.steps, "final_loss": result.final_loss, "history": result.history,
            "train_seconds": round(result.seconds, 2), "seconds": round(time.perf_counter() - t0, 2),
            "device": result.device, "deviations": deviations("scratchpad", arch, config, len(seeds))}



# ------------------------------------------------------------------------------------------------ summary
def _points(experiment: str, row_cell, keys, preset: Preset) -> tuple[dict, dict]:
    """The test points of one cell split into (in distribution, beyond training) and grouped by the judged
    sub-cell: ``{k_test: [keys]}`` for sparse parity (only ``k_test <= K_train``: the theorem says nothing about
    sparsities never trained on), ``{None: [keys]}`` for the scratchpad."""
    lo, hi = preset.train_range
    inside, beyond = {}, {}
    for key in keys:
        if experiment == "sparse-parity":
            k, length = map(int, key.split(","))
            if k > row_cell:
                continue
        else:
            k, length = None, int(key)
        (inside if lo <= length <= hi else beyond if length > hi else {}).setdefault(k, []).append(key)
    return inside, beyond


def summarize(experiment: str, records: list[dict], preset: Preset) -> dict:
    """Per cell: mean and per-seed accuracy; which seeds fit (accuracy >= ``preset.fit`` at every test point
    inside the training range, for the trained sparsities); the theory's prediction (sparse parity: Theorem
    4.3's side condition, :func:`theorem43_max_k`; scratchpad: :func:`scratchpad_prediction`); and, counting
    fitted seeds only, whether the cell generalizes (mean accuracy over fitted seeds >= ``preset.generalizes``
    at every test length beyond training) and agrees with the prediction.  Cells where no seed fits are
    listed in ``never_fit`` with what was tried."""
    import numpy as np

    L = preset.train_range[1]
    max_k = theorem43_max_k(L)
    rows, never = [], []
    for rec in records:
        sp = experiment == "sparse-parity"
        cell_id = rec["K_train"] if sp else f"{rec['jump']}:{rec['scheme']}"
        acc = rec["accuracy"]
        inside, beyond = _points(experiment, rec["K_train"] if sp else None, acc, preset)
        n = len(rec["seeds"])
        fitted = [bool(inside) and all(acc[key][s] >= preset.fit for keys in inside.values() for key in keys)
                  for s in range(n)]
        cell = {"accuracy_mean": {k: round(float(np.mean(v)), 4) for k, v in acc.items()},
                "per_seed": acc, "seconds": rec["seconds"], "steps": rec["steps"],
                "final_loss": rec.get("final_loss"), "learning_curves": rec.get("history"),
                "deviations": rec.get("deviations"), "fitted": fitted, "fitted_seeds": sum(fitted),
                "in_distribution": sorted(k for keys in inside.values() for k in keys)}
        if sp:
            cell["K_train"] = rec["K_train"]
            pred = {"predicted": rec["K_train"] <= max_k,
                    "basis": f"K_train = {rec['K_train']} {'<=' if rec['K_train'] <= max_k else '>'} {max_k}, the "
                             f"largest sparsity with L >= 4 L_local at L = {L} (Theorem 4.3's side condition)"}
        else:
            cell.update(jump=rec["jump"], scheme=rec["scheme"])
            pred = scratchpad_prediction(rec["jump"], rec["scheme"], preset.train_range, preset.test_lengths)
        cell["prediction"] = pred
        judged = []
        for k, keys in sorted(beyond.items(), key=lambda kv: (kv[0] is None, kv[0])):
            if not any(fitted):
                continue
            means = {key: round(float(np.mean([acc[key][s] for s in range(n) if fitted[s]])), 4) for key in keys}
            gen = min(means.values()) >= preset.generalizes
            judged.append({"k_test": k, "accuracy_fitted": means, "predicted": pred["predicted"],
                           "generalizes": gen, "agrees": gen == pred["predicted"]})
        cell["judged"] = judged
        if not any(fitted):
            never.append({"cell": str(cell_id), "tried": {"arch": rec.get("arch"), "steps": preset.steps(
                rec["K_train"] if sp else (rec["jump"], rec["scheme"])),
                                                          "lr": preset.lr, "batch": preset.batch,
                                                          "seeds": n, "final_loss": rec.get("final_loss")}})
        rows.append(cell)
    key = (lambda r: r["K_train"]) if experiment == "sparse-parity" else (lambda r: (r["scheme"], r["jump"]))
    rows.sort(key=key)
    judged = [j for r in rows for j in r["judged"]]
    out = {"experiment": f"golowich2025:{'fig1' if experiment == 'sparse-parity' else 'fig2'}",
           "name": experiment, "preset": preset.name, "description": preset.description,
           "config": {k: v for k, v in dataclasses.asdict(preset).items() if k not in ("name", "description")},
           "criteria": {"fit": f"accuracy >= {preset.fit} at every test length in the training range "
                               f"{list(preset.train_range)}" + (" for every k_test <= K_train" if experiment ==
                                                                "sparse-parity" else ""),
                        "generalizes": f"mean accuracy over fitted seeds >= {preset.generalizes} at every test "
                                       "length beyond training", "agreement": "counted over fitted seeds only"},
           "rows": rows, "never_fit": never, "judged": len(judged), "agree": sum(j["agrees"] for j in judged),
           "agreement_rate": round(sum(j["agrees"] for j in judged) / len(judged), 4) if judged else None,
           "wall_seconds": round(sum(r["seconds"] for r in rows), 1)}
    done = {r["K_train"] if experiment == "sparse-parity" else (r["jump"], r["scheme"]) for r in rows}
    out["missing"] = [str(c) if experiment == "sparse-parity" else f"{c[0]}:{c[1]}" for c in preset.cells
                      if (c if experiment == "sparse-parity" else tuple(c)) not in done]
    if experiment == "sparse-parity":
        out["theory"] = {"max_train_length_tokens": L, "thm43_max_k": max_k,
                         "paper_reading_K_le_L_over_4": L // 4,
                         "note": "Theorem 4.3's side condition L >= 4 L_local with L_local >= 2k - 1 (smallest span "
                                 "of the planted pairs); the theorem is refuted as stated (golowich2025:thm4.3)"}
    return out


def _judged(r: dict, k=None) -> str:
    j = next((j for j in r["judged"] if j["k_test"] == k), None)
    return "-" if j is None else f"{'yes' if j['generalizes'] else 'no'} / {'yes' if j['agrees'] else 'no'}"


def table(summary: dict) -> str:
    """Markdown: accuracy % (mean over all seeds) per test point, fitted seeds, prediction, and for the judged
    cells whether the fitted seeds generalize and agree with the prediction."""
    rows = summary["rows"]
    cols = list(dict.fromkeys(c for r in rows for c in r["accuracy_mean"]))
    yn = {True: "✓", False: "✗"}
    if summary["name"] == "sparse-parity":
        th = summary["theory"]
        lengths = sorted({int(c.split(",")[1]) for c in cols})
        lines = [f"Theorem 4.3 threshold: k <= {th['thm43_max_k']} (L = {th['max_train_length_tokens']}; "
                 f"paper's reading K_train <= L/4 = {th['paper_reading_K_le_L_over_4']})", "",
                 "| K_train | fitted seeds | pred. | k_test | " + " | ".join(f"2l={n}" for n in lengths)
                 + " | generalizes / agrees |", "|---" * (5 + len(lengths)) + "|"]
        for r in rows:
            for k in sorted({int(c.split(",")[0]) for c in r["accuracy_mean"]}):
                vals = [r["accuracy_mean"].get(f"{k},{n}") for n in lengths]
                lines.append(f"| {r['K_train']} | {r['fitted_seeds']}/{len(r['fitted'])} | "
                             f"{yn[r['prediction']['predicted']] if k <= r['K_train'] else '-'} | {k}"
                             f"{' (> K_train)' if k > r['K_train'] else ''} | "
                             + " | ".join("-" if v is None else f"{100 * v:.1f}" for v in vals)
                             + f" | {_judged(r, k) if k <= r['K_train'] else '-'} |")
    else:
        lengths = sorted({int(c) for c in cols})
        lines = ["| scheme | jump k | fitted seeds | pred. | " + " | ".join(f"l={n}" for n in lengths)
                 + " | generalizes / agrees |", "|---" * (5 + len(lengths)) + "|"]
        for r in rows:
            vals = [r["accuracy_mean"].get(str(n)) for n in lengths]
            lines.append(f"| {r['scheme']} | {r['jump']} | {r['fitted_seeds']}/{len(r['fitted'])} | "
                         f"{yn[r['prediction']['predicted']]} | "
                         + " | ".join("-" if v is None else f"{100 * v:.1f}" for v in vals) + f" | {_judged(r)} |")
    lines.append(f"\nfit: {summary['criteria']['fit']}; generalizes: {summary['criteria']['generalizes']}; "
                 f"agreement: {summary['agree']} of {summary['judged']} judged cells")
    if summary["never_fit"]:
        lines.append("never fit (no seed): " + ", ".join(c["cell"] for c in summary["never_fit"]))
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
    from lengthgen_cli.figure_data import save

    fig = figure(summary)
    return [] if fig is None else save(fig, os.path.splitext(json_path)[0], os.path.basename(json_path), dpi=110,
                                          within=os.path.dirname(json_path) or ".")


# -------------------------------------------------------------------------------------------------- CLI
def specs(experiment: str, preset: Preset, device: str, threads: int | None):
    from lengthgen_cli.sweep import RunSpec

    cfg = {k: v for k, v in dataclasses.asdict(preset).items()
           if k in ("batch", "max_steps", "lr", "loss_target", "test_samples", "test_lengths", "k_test",
                    "train_range", "L_max", "N") or (k in ("weight_decay", "warmup") and v)}
    cfg = {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()}
    import hashlib
    import json

    out = []
    for cell in preset.cells:
        cell_cfg = {**cfg, "max_steps": preset.steps(cell)}  # a cell at the preset's budget keeps its old key
        digest = hashlib.sha256(json.dumps([preset.arch, cell_cfg], sort_keys=True).encode()).hexdigest()[:10]
        base = f"golowich2025/{experiment}/{preset.name}/seeds={preset.seeds}/cfg={digest}"
        common = {"arch": dict(preset.arch), "seeds": list(range(preset.seeds)), "config": cell_cfg,
                  "device": device, "threads": threads}
        if experiment == "sparse-parity":
            out.append(RunSpec(f"{base}/K_train={cell}", "bounds.experiments.golowich2025:run_sparse_parity",
                               {"K_train": cell, **common}))
        else:
            out.append(RunSpec(f"{base}/jump={cell[0]}/{cell[1]}", "bounds.experiments.golowich2025:run_scratchpad",
                               {"jump": cell[0], "scheme": cell[1], **common}))
    return out


def _parser():
    from bounds.experiments.options import add_budget_options, add_run_options
    from lengthgen_cli import Parser

    ap = Parser(prog=f"python -m {PROG}", description=__doc__.split("\n\n")[0])
    ap.add_argument("--experiment", choices=EXPERIMENTS, required=True, help="Figures 1/7 or Figures 2/8")
    ap.add_argument("--preset", choices=("quick", "cpu", "paper"), default="quick",
                    help="quick: small CPU models, tiny budgets; cpu: trained until they fit on a 2-core CPU; "
                         "paper: the paper's sizes (GPU)")
    ap.add_argument("--cells", help="subset of the preset's cells: K_train values (sparse-parity, e.g. 2,4) or "
                                    "jump:scheme pairs (scratchpad, e.g. 1:coupled,2:shifted-ape)")
    add_budget_options(ap, "point")
    add_run_options(ap, "runs/golowich2025-<experiment>-<preset>")
    ap.add_argument("--from-results", metavar="FILE",
                    help="summarize again from a results file's own per-cell accuracies and its preset (no runs, "
                         "no training): brings an older results file to the current summary (prediction, fit, "
                         "judged cells); written to --results-dir under the file's name")
    return ap


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def records_of_summary(summary: dict) -> tuple[list[dict], Preset]:
    """The run records and the preset a results file of :func:`summarize` was made from, as far as it keeps them:
    per-seed accuracies, steps, seconds (and loss, curves, deviations where present); the preset from the file's
    own ``config``, not today's.  ``summarize(*records_of_summary(s))`` recomputes every derived field."""
    fields = {f.name for f in dataclasses.fields(Preset)}
    config = {k: _tuples(v) for k, v in summary["config"].items() if k in fields}
    preset = Preset(name=summary["preset"], description=summary["description"], **config)
    sp = summary["name"] == "sparse-parity"
    records = []
    for row in summary["rows"]:
        n = len(next(iter(row["per_seed"].values())))
        rec = {"accuracy": row["per_seed"], "seeds": list(range(n)), "seconds": row["seconds"],
               "steps": row["steps"], "final_loss": row.get("final_loss"), "history": row.get("learning_curves"),
               "deviations": row.get("deviations"), "arch": summary["config"].get("arch")}
        rec.update({"K_train": row["K_train"]} if sp else {"jump": row["jump"], "scheme": row["scheme"]})
        records.append(rec)
    return records, preset


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
    from bounds.experiments.options import check_run_options
    from bounds.experiments.training.progress import SweepProgress
    from lengthgen_cli.sweep import SweepError, load_records, recorded, run_specs

    if args.from_results:
        return _write(_resummarized(args), args)
    preset = PRESETS[args.experiment][args.preset]
    changes = {k: v for k, v in (("seeds", args.seeds), ("max_steps", args.steps),
                                 ("test_samples", args.test_samples)) if v is not None}
    if args.steps is not None:
        changes["cell_steps"] = ()  # --steps is every cell's budget
    if args.cells:
        changes["cells"] = _cells(args.experiment, args.cells)
    preset = dataclasses.replace(preset, **changes)
    name = f"golowich2025-{args.experiment}-{preset.name}"
    runs_dir = args.runs or os.path.join("runs", name)
    check_run_options(args, runs_dir)
    from bounds.experiments.options import check_summary_paths

    check_summary_paths(args.results_dir, name, preset.name)
    todo = specs(args.experiment, preset, args.device, args.threads)
    left = [s for s in todo if not recorded(runs_dir, s)]
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
    return _write(summarize(args.experiment, records, preset), args)


def _resummarized(args) -> dict:
    import json

    try:
        with open(args.from_results, encoding="utf-8") as fh:
            old = json.load(fh)
        if old["name"] != args.experiment:
            raise UsageError(f"{args.from_results} holds the {old['name']} experiment, not {args.experiment}")
        return summarize(args.experiment, *records_of_summary(old))
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read {args.from_results}: {e}") from None
    except RecursionError:
        raise UsageError(f"{args.from_results} is nested too deeply to be read") from None
    except (KeyError, TypeError, StopIteration, AttributeError, IndexError) as e:
        raise UsageError(f"{args.from_results} is not a golowich2025 results file (missing {e})") from None


def _write(summary: dict, args) -> int:
    from bounds.experiments.options import write_summary

    return write_summary(summary, args.results_dir, f"golowich2025-{summary['name']}-{summary['preset']}",
                         table(summary), plot, args.no_plot)


@command
def main(argv=None) -> int:
    from constructions.tasks.errors import TaskError
    from lengthgen_cli import usage_errors

    ap = _parser()
    args = ap.parse_args(argv)
    with usage_errors(ap, UsageError, TaskError):
        return run(args)

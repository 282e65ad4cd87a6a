"""Print the markdown tables of docs/measured_thresholds.md from the committed JSONL results (no training).

    python docs/results/make_table.py

Uses :func:`bounds.measure.summarize` (measured threshold = smallest N whose seed-mean plateau < eps) and
``bounds.estimate`` for the prediction, exactly as ``python -m bounds.measure`` does.
"""

import os
import sys

from bounds.estimate import run as estimate_run
from bounds.measure import read_records, summarize

HERE = os.path.dirname(os.path.abspath(__file__))
EPS = 0.01
PRED_EPS = "1/10"  # sqrt(EPS), bounds.measure's default --pred-eps
RUNS = ([("modp", {"period": p}, f"modp_p{p}.jsonl", "") for p in (2, 3, 5)]
        + [("simple", {"omega": w}, f"simple_w{w}.jsonl", "") for w in (1, 2, 4)]
        + [("simple", {"omega": 4}, "simple_w4_long.jsonl", " (3000 steps, lr 0.03)"),
           ("modp", {"period": 3}, "control_modp_p3_absolute.jsonl", " absolute positions (control)")])


def _g(x):
    return "-" if x is None else f"{x:.2g}"


def _pred(task, params):
    argv = ["--task", task, "--eps", PRED_EPS, "--json"]
    argv += ["--period", str(params["period"])] if task == "modp" else ["--omega", str(params["omega"])]
    return estimate_run(argv)


def _detail(label, name, s, recs):
    lines = [f"\n**{label}** (`{name}`)\n",
             "| N | seeds | plateau mean | plateau max | converged (mean plateau) | train loss | test 2N | test 4N | "
             "test 8N | steps | attn. mass on class @80 |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in s["rows"]:
        rs = [r for r in recs if r["N"] == row["N"]]
        att = [r["attention"]["mass_class"] for r in rs if "attention" in r]
        tl = row["test_loss_mean"]
        lines.append(
            f"| {row['N']} | {row['seeds']} | {row['plateau_mean']:.2g} | {row['plateau_max']:.2g} | "
            f"{row['reached_target']}/{row['seeds']} ({_g(row['plateau_mean_converged'])}) | "
            f"{row['train_loss_mean']:.2g} | {_g(tl.get('2'))} | {_g(tl.get('4'))} | {_g(tl.get('8'))} | "
            f"{'/'.join(str(r['steps']) for r in rs)} | {'/'.join(f'{a:.3f}' for a in att) if att else '-'} |")
    return lines


def main(out=sys.stdout):
    summary, detail = [], []
    for task, params, name, suffix in RUNS:
        recs = read_records(os.path.join(HERE, name))
        if not recs:
            continue
        lengths = sorted({r["N"] for r in recs})
        s = summarize(recs, lengths, EPS)
        p = _pred(task, params)
        label = recs[0]["task"] + suffix
        secs = sum(r["train_seconds"] for r in recs)
        summary.append(
            f"| {label} | {', '.join(map(str, lengths))} | **{s['measured_threshold']}** | "
            f"{s['measured_threshold_all_seeds']} | {s['measured_threshold_stable']} | "
            f"{s['measured_threshold_converged']} | {p['hardmax_length']} | {p['sample_length']} | {p['N']} | "
            f"{p['L']:.3g} | {len(recs)} runs, {sum(r['steps'] for r in recs)} steps, {secs:.0f} s |")
        detail += _detail(label, name, s, recs)
    print("| task | N grid | measured threshold (mean plateau < 0.01) | every seed < 0.01 | < 0.01 at every "
          "larger N | converged runs only | hardmax_length | sample_length | predicted N | L | training time |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|", file=out)
    print("\n".join(summary), file=out)
    print("\n".join(detail), file=out)


if __name__ == "__main__":
    main()

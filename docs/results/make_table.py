"""Print the markdown tables of docs/measured_thresholds.md from the committed JSONL results (no training).

    python docs/results/make_table.py

Uses :func:`bounds.measure.summarize` (measured threshold = smallest N whose seed-mean plateau < eps) and
``bounds.estimate`` for the prediction, exactly as ``python -m bounds.measure`` does.
"""

import os
import sys
from fractions import Fraction

from bounds.estimate import run as estimate_run
from bounds.measure import read_records, summarize

HERE = os.path.dirname(os.path.abspath(__file__))
EPS = 0.01
PRED_EPS = "1/10"  # sqrt(EPS), bounds.measure's default --pred-eps
RUNS = [("modp", {"period": p}, f"modp_p{p}.jsonl") for p in (2, 3, 5)] + \
       [("simple", {"omega": w}, f"simple_w{w}.jsonl") for w in (1, 2, 4)] + \
       [("modp", {"period": 3, "positions": "absolute"}, "control_modp_p3_absolute.jsonl")]


def _pred(task, params):
    argv = ["--task", task, "--eps", PRED_EPS, "--json"]
    argv += ["--period", str(params["period"])] if task == "modp" else ["--omega", str(params["omega"])]
    return estimate_run(argv)


def main(out=sys.stdout):
    summary, detail = [], []
    for task, params, name in RUNS:
        path = os.path.join(HERE, name)
        recs = read_records(path)
        if not recs:
            continue
        lengths = sorted({r["N"] for r in recs})
        s = summarize(recs, lengths, EPS)
        p = _pred(task, params)
        label = recs[0]["task"] + (" absolute pos." if params.get("positions") == "absolute" else "")
        steps = sum(r["steps"] for r in recs)
        secs = sum(r["train_seconds"] for r in recs)
        summary.append(f"| {label} | {', '.join(map(str, lengths))} | **{s['measured_threshold']}** | "
                       f"{s['measured_threshold_all_seeds']} | {s['measured_threshold_stable']} | {p['hardmax_length']} | {p['sample_length']} | "
                       f"{p['N']} | {p['L']:.3g} | {len(recs)} runs, {steps} steps, {secs:.0f} s |")
        detail.append(f"\n**{label}** (`{name}`)\n\n| N | seeds | plateau mean | plateau max | train loss | "
                      "test 2N | test 4N | test 8N | steps | attn. mass on class @80 |\n|---|---|---|---|---|---|---|---|---|---|")
        for row in s["rows"]:
            rs = [r for r in recs if r["N"] == row["N"]]
            att = [r["attention"]["mass_class"] for r in rs if "attention" in r]
            tl = row["test_loss_mean"]
            detail.append(f"| {row['N']} | {row['seeds']} | {row['plateau_mean']:.2g} | {row['plateau_max']:.2g} | "
                          f"{row['train_loss_mean']:.2g} | {tl.get('2', float('nan')):.2g} | "
                          f"{tl.get('4', float('nan')):.2g} | {tl.get('8', float('nan')):.2g} | "
                          f"{'/'.join(str(r['steps']) for r in rs)} | "
                          f"{'/'.join(f'{a:.3f}' for a in att) if att else '-'} |")
    print("| task | N grid | measured threshold (mean plateau < 0.01) | every seed < 0.01 | < 0.01 at every "
          "larger N | hardmax_length | sample_length | predicted N | L | compute |\n"
          "|---|---|---|---|---|---|---|---|---|---|", file=out)
    print("\n".join(summary), file=out)
    print("\n".join(detail), file=out)


if __name__ == "__main__":
    assert Fraction(PRED_EPS) ** 2 == Fraction(EPS).limit_denominator()
    main()

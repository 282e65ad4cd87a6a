"""Print the markdown tables of docs/measured_thresholds.md from the committed summaries (no training).

    python scripts/measured_table.py [docs/results/izzo2025-modp-quick.json docs/results/izzo2025-simple-quick.json]
"""

import json
import os
import sys

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "results")
DEFAULT = [os.path.join(HERE, f"izzo2025-{k}-quick.json") for k in ("modp", "simple")]


def _g(x, fmt=".2g"):
    return "-" if x is None else format(x, fmt)


def tables(data: dict) -> list[str]:
    eps = data["eps"]
    lines = [f"| task | N grid | N_min (seed mean < {eps}) | per-seed N_min min / median / max (never) | seed median "
             "< eps | stable | converged only | predicted N | predicted / measured | trained model: gamma, L, "
             "log10 N at p = 8 (run) | train s |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for t in data["tasks"]:
        s, sp, tm = t["summary"], t["n_min_spread"], t["trained_model"]
        lines.append(
            f"| {t['task']} | {', '.join(map(str, t['grid']))} | **{t['n_min']}** | {sp['min']} / {sp['median']} / "
            f"{sp['max']} ({sp['seeds_without']}) | {s['n_min_median']} | {s['n_min_stable']} | "
            f"{s['n_min_converged']} | {t['predicted']['N']} | {_g(t['ratio_predicted_over_measured'], '.3g')} | "
            f"{tm['gamma']:.3g}, {tm['L']:.4g}, {tm['log10_N_p8']:.3g} (N={tm['N']}, seed {tm['seed']}) | "
            f"{t['train_seconds']:.0f} |")
    fit = data.get("slope")
    if fit:
        x = "p" if data["tasks"][0]["task_kind"] == "modp" else "omega"
        lines.append(f"\nSlope of per-seed N_min against {x}: **{fit['slope']:.3g}** (95% CI {fit['slope_ci'][0]:.3g} .. "
                     f"{fit['slope_ci'][1]:.3g}; intercept {fit['intercept']:.3g}; {fit['points']} points, R^2 "
                     f"{fit['r2']:.2f}; {fit['seeds_left_out']} seed curves never below eps left out)")
    for t in data["tasks"]:
        lines += [f"\n**{t['task']}**\n", "| N | plateau mean | median | min | max | reached target | steps (max) | "
                  "test 2N | test 4N | test 8N |", "|---|---|---|---|---|---|---|---|---|---|"]
        for row in t["summary"]["rows"]:
            tl = row["test_loss_mean"]
            lines.append(f"| {row['N']} | {row['plateau_mean']:.2g} | {row['plateau_median']:.2g} | "
                         f"{row['plateau_min']:.2g} | {row['plateau_max']:.2g} | {row['reached_target']}/{row['seeds']} | "
                         f"{row['steps_max']} | {_g(tl.get('2'))} | {_g(tl.get('4'))} | {_g(tl.get('8'))} |")
    return lines


def main(paths) -> None:
    for p in paths:
        with open(p, encoding="utf-8") as fh:
            print("\n".join(tables(json.load(fh))) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)

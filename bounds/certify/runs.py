"""``python -m bounds.certify --runs DIR``: a certificate for every trained seed of a ``bounds.experiments.measure`` run folder.

Each (run, seed) is converted (:func:`bounds.certify.trained.from_record`; the trained network's exact softmax
semantics), certified against its task's App. A.2 construction (izzo semantics, under which the construction is
exact at every length: :mod:`constructions.tasks`) and, with ``--target-fn``, against the task's true function,
with delta = the certified max |f - g| over the training lengths (model lengths 2..N + 1: the empty input is never
trained), and the certified horizon H and shortest failure X of each certificate
(:mod:`bounds.certify.horizon`).  One JSON line per (run, seed) goes to
``--out`` as it is produced (resumable: a kill loses only the certificates in flight).  The seeds are certified
by the sweeps' executors (:func:`lengthgen_cli.sweep.execute_specs`): ``--workers K`` local processes that end
with the command, or ``--executor ray [--ray-address ADDR]`` Ray tasks on a cluster; each task is given its seed's
record itself, not a path, so the workers need not see the run folder.  :func:`summarize` turns the records into the per-task table of docs/certify.md, including
the soundness check: the certified sup of ``|f - f*|`` is at least the measured root-mean-square error at every
test length (for ModP the construction is f* itself; for SimpleTask the construction is within its certified
sine error of f*).
"""

from __future__ import annotations

import json
import math
import os
from fractions import Fraction

from bounds.certify.horizon import write_out
from lengthgen_cli import JsonlOutput, UsageError, check_output, progress, read_json
from lengthgen_cli.options import strict_json

#: float32 evaluation of the trained network (torch) against its exact conversion: the measured MSE may exceed the
#: exact one by this much in root-mean-square (docs/certify.md)
MEASURE_TOL = 1e-4
#: a run "generalizes empirically" when its test-loss plateau is below this (bounds.experiments.measure's default --eps)
PLATEAU_EPS = 0.01
#: the largest training length N a run record may hold (as bounds.experiments.measure's MAX_TRAIN_LENGTH)
MAX_RECORD_LENGTH = 4096


def _construction(kind: str, params: dict):
    from constructions.tasks import ModPTask, SimpleTask

    if kind == "modp":
        return ModPTask(int(params["period"]), int(params.get("index", 0))).limit_transformer(), 0.0
    task = SimpleTask(params["omega"])
    g = task.limit_transformer()
    return g, float(Fraction(g.metadata["certified_error"]))


def certify_seed(source: str, full: dict, seed_index: int, eps: float, budget: float, target_fn: bool,
                 gap: float | None, max_boxes: int | None = None, first: int | None = None,
                 max_length: int | None = None) -> dict:
    """The record of seed ``seed_index`` of the run file ``full`` (``{"key", "record"}``; ``source`` names it in
    errors), run by an executor (in this process, a worker process or a Ray task); ``max_boxes`` and ``first`` as in
    :func:`bounds.certify.search.certify` (default FIRST_LENGTH = 2: the empty input is never trained), and
    ``max_length`` the N0 enumerated (default: picked within a quarter of the budget)."""
    from bounds.certify.search import (
        FIRST_LENGTH,
        CertifyError,
        Problem,
        certificate_record,
        certify,
        task_target,
    )
    from bounds.certify.trained import from_record

    first = first or FIRST_LENGTH

    try:
        rec = full["record"]
        run = rec["runs"][seed_index]
        f = from_record(rec, seed_index)
        g, g_err = _construction(rec["task_kind"], rec["task_params"])
        target = task_target(rec["task_kind"], rec["task_params"]) if target_fn else None
        N = rec["N"]
        out = {"run_key": full["key"], "seed": run["seed"], "task": rec["task"], "task_kind": rec["task_kind"],
               "params": rec["task_params"], "N": N, "construction_error": g_err,
               "measured": {"test_loss": run["test_loss"], "plateau": run["plateau"], "train_loss": run["train_loss"],
                            "reached_target": run["reached_target"]}}
    except (KeyError, TypeError, IndexError, ValueError, AttributeError, ArithmeticError) as e:
        raise UsageError(f"{source} is not a trained run this mode can certify ({type(e).__name__}: "
                         f"{e})") from None
    prob = Problem(f, g, ("softmax", "izzo"))
    limits = dict(first=first, max_length=max_length, **({} if max_boxes is None else {"max_boxes": max_boxes}))
    try:
        cert = certify(prob, eps, None, N + 1, budget, gap, **limits)
        out["construction"] = _compact(certificate_record(cert, prob))
        if target_fn:
            prob = Problem(f, None, ("softmax", "softmax"), target)
            cert = certify(prob, eps, None, N + 1, budget, gap, **limits)
            out["target"] = _compact(certificate_record(cert, prob))
    except CertifyError as e:  # a size beyond the certifier's limits: this seed is refused, the sweep goes on
        return {k: out[k] for k in REFUSED_FIELDS} | {"refused": " ".join(str(e).split())}
    return out


#: the fields of a refused seed's record (``"refused"``: the certifier's one-line reason, e.g. a length whose
#: configurations exceed ``MAX_CONFIGS_PER_LENGTH``); it is counted apart in the summary and never retried
REFUSED_FIELDS = ("run_key", "seed", "task", "task_kind", "params", "N", "measured")


def _compact(rec: dict) -> dict:
    rec = dict(rec)
    rec["lengths"] = [[r["length"], r["lower"], r["upper"]] for r in rec["lengths"]]
    return rec


def _jobs(runs_dir: str, seeds: int | None) -> list:
    if not os.path.isdir(runs_dir):
        raise UsageError(f"--runs {runs_dir!r} is not a folder")
    names = sorted(f for f in os.listdir(runs_dir) if f.endswith(".json") and not f.startswith(".tmp-"))
    jobs = []
    for name in names:
        path = os.path.join(runs_dir, name)
        not_record = f"{path} is not a bounds.experiments.measure run record"
        full = read_json(path, "run record")
        try:
            rec = full["record"]
            count = len(rec["runs"])
            key = full["key"]
            _ = rec["task_kind"], rec["runs"][0]["weights"], rec["config"].get("positions")
            ok = (isinstance(key, str) and isinstance(rec["N"], int) and not isinstance(rec["N"], bool)
                  and 1 <= rec["N"] <= MAX_RECORD_LENGTH and all(isinstance(r, dict) and "seed" in r
                                                                 for r in rec["runs"]))
        except (KeyError, TypeError, IndexError, AttributeError):
            raise UsageError(not_record) from None
        if not ok:
            raise UsageError(not_record)
        if rec["config"].get("positions") != "periodic":
            raise UsageError(f"{path}: {rec['config'].get('positions')!r} positions have no Limit Transformer form; "
                             "certify needs periodic positions")
        for i in range(min(count, seeds or count)):
            jobs.append((path, key, i, rec["N"]))
    if not jobs:
        raise UsageError(f"--runs {runs_dir!r} holds no bounds.experiments.measure run records")
    return sorted(jobs, key=lambda j: (j[3], j[1], j[2]))


def _is_summary(text: str) -> bool:
    """Whether an existing ``--summary`` file is a summary this mode wrote (it is replaced; anything else is not)."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return False
    return isinstance(data, dict) and {"verdicts", "soundness", "tasks"} <= set(data)


def check_options(args) -> None:
    """Everything --runs writes, checked before any certificate is computed (one line, exit 2)."""
    from lengthgen_cli.output import check_output_folder

    if args.summary is not None:
        check_output(args.summary, kind="artefact", recognise=_is_summary, option="--summary")
    if args.plots is not None:
        check_output_folder(args.plots, "--plots")


def run(args) -> str:
    if args.summarize_only and not (args.out and os.path.isfile(args.out)):
        raise UsageError("--summarize-only reads the records of --out FILE; give an existing record file")
    check_options(args)
    done_records = check_output(args.out, kind="jsonl", resume=args.resume or args.summarize_only,
                                recognise=lambda recs: all(isinstance(r, dict) and "run_key" in r for r in recs))
    if args.summarize_only:
        return _finish(args, list(done_records or []), float(args.eps))
    jobs = _jobs(args.runs, args.seeds)
    done = {(r["run_key"], r["seed"]) for r in (done_records or [])}
    records = list(done_records or [])
    eps = float(args.eps)
    opts = {"eps": eps, "budget": args.time_budget, "target_fn": args.target_fn, "gap": args.gap,
            "max_boxes": args.max_boxes, "first": args.first_length, "max_length": args.max_length}
    longest = max(N for *_, N in jobs) + 1
    if args.max_length is not None and args.max_length < longest:
        raise UsageError(f"--max-length {args.max_length} is below the longest training length {longest} of "
                         f"--runs {args.runs} (model lengths): delta is the max |f - g| over the training lengths")
    files: dict = {}
    todo = [spec for spec in (_seed_spec(path, files.setdefault(path, read_json(path, "run record")), i, opts)
                              for path, _, i, _ in jobs)
            if (spec.kwargs["full"]["key"], spec.kwargs["full"]["record"]["runs"][0]["seed"]) not in done]
    bar = progress(total=len(jobs), desc="certify: seeds", unit="seed")
    bar.update(len(jobs) - len(todo))
    from lengthgen_cli.sweep import SweepError, execute_specs

    with JsonlOutput(args.out) as out:
        def save(spec, r: dict, seconds: float) -> None:
            out.write(r)
            records.append(r)
            bar.update(1)

        try:
            execute_specs(todo, save, args.executor, args.workers, args.ray_address)
        except SweepError as e:
            raise UsageError(str(e)) from None
    bar.close()
    return _finish(args, records, eps)


def _seed_spec(path: str, full: dict, seed_index: int, opts: dict):
    """The executor's job for one seed (:class:`lengthgen_cli.sweep.RunSpec`): its run file ``full`` (read from
    ``path``) with that seed's run alone, so a worker on another machine needs no access to the run folder."""
    from lengthgen_cli.sweep import RunSpec

    rec = full["record"]
    one = {"key": full["key"], "record": {**rec, "runs": [rec["runs"][seed_index]]}}
    seed = rec["runs"][seed_index]["seed"]
    return RunSpec(f"{full['key']}#seed={seed}", "bounds.certify.runs:certify_seed",
                   {"source": f"{path}: seed {seed_index}", "full": one, "seed_index": 0, **opts})


def _finish(args, records: list, eps: float) -> str:
    summary = summarize(records, eps)
    summary["records_file"] = args.out  # where --write-witness --seed-key finds a failing input's counts
    if args.summary:
        from lengthgen_cli.output import write_text

        write_text(args.summary, strict_json(summary))  # standard JSON: an unbounded U or delta is "inf"
    if args.plots:
        summary["plots"] = plot(summary, args.plots, os.path.basename(args.summary or "izzo2025-certify.json"))
    if args.json:
        return strict_json(summary)
    return summary_text(summary)


# ------------------------------------------------------------------------------------------------ summary
def soundness(r: dict) -> list:
    """(test multiple, measured RMSE, certified bound of sup |f - f*|, holds) for one record: the bound is the target
    certificate's U, or the construction's U plus the construction's own certified error."""
    bounds = []
    if r.get("target"):
        bounds.append(r["target"]["upper"])
    bounds.append(r["construction"]["upper"] + r["construction_error"])
    U = min(bounds)
    return [(m, math.sqrt(v), U, math.sqrt(v) <= U + MEASURE_TOL) for m, v in sorted(r["measured"]["test_loss"].items(),
                                                                                      key=lambda kv: int(kv[0]))]


def summarize(records: list, eps: float) -> dict:
    refused = [r for r in records if "refused" in r]
    records = [r for r in records if "refused" not in r]
    tasks: dict = {}
    for r in records:
        tasks.setdefault(r["task"], {"task": r["task"], "task_kind": r["task_kind"], "params": r["params"],
                                     "rows": {}})
        rows = tasks[r["task"]]["rows"]
        rows.setdefault(r["N"], []).append(r)
    out_tasks = []
    sound_total = sound_ok = 0
    verdicts_all = {"certified": 0, "fails": 0, "undetermined": 0}
    generalizing = {"certified": 0, "fails": 0, "undetermined": 0}
    for r in records:
        if r["measured"]["plateau"] < PLATEAU_EPS:
            generalizing[r["construction"]["verdict"]] += 1
    for name in sorted(tasks, key=lambda t: (tasks[t]["task_kind"], t)):
        t = tasks[name]
        rows = []
        for N in sorted(t["rows"]):
            rs = sorted(t["rows"][N], key=lambda r: r["seed"])
            verd = {"certified": 0, "fails": 0, "undetermined": 0}
            for r in rs:
                verd[r["construction"]["verdict"]] += 1
                verdicts_all[r["construction"]["verdict"]] += 1
            checks = [c for r in rs for c in soundness(r)]
            sound_total += len(checks)
            sound_ok += sum(c[3] for c in checks)
            rows.append({"N": N, "seeds": len(rs), "verdicts": verd,
                         "upper": [r["construction"]["upper"] for r in rs],
                         "lower": [r["construction"]["lower"] for r in rs],
                         "delta": [r["construction"]["delta"][1] for r in rs],
                         "witness_length": [r["construction"]["witness"]["length"] for r in rs],
                         "target_upper": [r["target"]["upper"] for r in rs if r.get("target")],
                         "measured_rmse": {m: [math.sqrt(r["measured"]["test_loss"][m]) for r in rs]
                                           for m in rs[0]["measured"]["test_loss"]},
                         "plateau": [r["measured"]["plateau"] for r in rs],
                         "sound": all(c[3] for c in checks),
                         "seconds": [r["construction"]["seconds"] for r in rs],
                         "horizon": {which: horizon_summary([r[which] for r in rs if r.get(which)], N + 1,
                                                            [seed_key(r, which) for r in rs if r.get(which)])
                                     for which in ("construction", "target") if any(r.get(which) for r in rs)}})
        out_tasks.append({"task": name, "task_kind": t["task_kind"], "rows": rows,
                          "bracket": task_bracket(t["task_kind"], t["params"], eps)})
    return {"eps": eps, "records": len(records), "verdicts": verdicts_all, "refused": _refused_groups(refused),
            "generalizing_empirically": {"plateau_below": PLATEAU_EPS, "verdicts": generalizing},
            "soundness": {"checks": sound_total, "holding": sound_ok, "tolerance": MEASURE_TOL}, "tasks": out_tasks}


def _refused_groups(refused: list) -> list:
    """Refused seeds grouped by (task, N): ``[{"task", "N", "seeds", "reason"}]``, in task and length order."""
    groups: dict = {}
    for r in refused:
        g = groups.setdefault((r["task"], r["N"]), {"task": r["task"], "N": r["N"], "seeds": 0, "reason": r["refused"]})
        g["seeds"] += 1
    return [groups[k] for k in sorted(groups)]


def task_bracket(kind: str, params: dict, eps: float) -> dict | None:
    """The bracket ``lower <= N* <= upper`` of ``python -m bounds.estimate`` (Izzo et al. Theorem 4.1: the corrected
    upper bound, and the certified lower bound of :mod:`bounds.lower`) for the class of the task's App. A.2
    construction at this eps and delta = 0, in model lengths (an int, or None where a side is not a materialized
    integer); None when the estimate refuses the task."""
    from bounds.estimate import run as estimate
    from bounds.margin import BoundsError

    e = Fraction(eps).limit_denominator(10**6)
    argv = ["--task", kind, "--eps", str(e), "--json"]
    argv += (["--period", str(params["period"]), "--index", str(params.get("index", 0))] if kind == "modp"
             else ["--omega", str(params["omega"])])
    try:
        r = estimate(argv)
    except (BoundsError, UsageError, ValueError, KeyError):
        return None
    lower, upper = (r.get("lower") or {}).get("N"), (r.get("corrected") or {}).get("N")
    return {"lower": lower if isinstance(lower, int) else None, "upper": upper if isinstance(upper, int) else None,
            "eps": str(e), "delta": "0", "lengths": "model lengths (a training length N reaches model length N + 1)",
            "command": "python -m bounds.estimate " + " ".join(a for a in argv if a != "--json")}


#: horizon multiples of the training length counted per row of the summary
HORIZON_MULTIPLES = (10**3, 10**9)


def seed_key(record: dict, which: str) -> str:
    """``RUN_KEY:SEED:CERTIFICATE`` of one certificate of a record: ``--write-witness RECORDS --seed-key`` writes
    its failing input (:func:`bounds.certify.export.parse_seed_key`)."""
    return f"{record['run_key']}:{record['seed']}:{which}"


def horizon_summary(certs: list, train_length: int, keys: list | None = None) -> dict:
    """Per-row horizon statistics of certificates (one per seed) against the training length (model length N + 1):
    the median H / (N + 1) (``inf`` for every length), the shortest failure X with its string (or class counts),
    and how many seeds are certified to >= 10^3 (N + 1), >= 10^9 (N + 1) and at every length.  Records made
    before the horizon existed count under ``without_horizon``."""
    hs = [c["horizon"] for c in certs if c.get("horizon")]
    ratios = [math.inf if h["every_length"] else h["H"] / train_length for h in hs]
    fails = [h for h in hs if h["X"] is not None]
    short = min(fails, key=lambda h: h["X"]) if fails else None
    short_key = None if short is None or keys is None else keys[[c.get("horizon") for c in certs].index(short)]
    return {"seeds": len(certs), "without_horizon": len(certs) - len(hs), "train_length": train_length,
            "median_H_over_train": _med(ratios) if ratios else None, "H": [None if h["every_length"] else h["H"]
                                                                       for h in hs],
            "X": [h["X"] for h in hs],
            "shortest_X": None if short is None else short["X"],
            "shortest_seed_key": short_key,
            "shortest_witness": None if short is None else (short["witness"].get("string")
                                                            if short["witness"].get("string") is not None
                                                            else {"counts": short["witness"].get("counts"),
                                                                  "window": short["witness"].get("window")}),
            "at_least": {str(m): sum(h["every_length"] or h["H"] >= m * train_length for h in hs)
                         for m in HORIZON_MULTIPLES},
            "every_length": sum(h["every_length"] for h in hs)}


def _med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def summary_text(s: dict) -> str:
    v = s["verdicts"]
    lines = [f"{s['records']} trained seeds against their App. A.2 construction (eps = {s['eps']}): "
             f"{v['certified']} certified, {v['fails']} fail, {v['undetermined']} undetermined; soundness "
             f"{s['soundness']['holding']}/{s['soundness']['checks']} (certified sup >= measured RMSE at 2, 4, 8 N)",
             "  of the seeds whose test-loss plateau is below {plateau_below} (they generalize empirically): "
             "{v[certified]} certified, {v[fails]} fail, {v[undetermined]} undetermined".format(
                 **s["generalizing_empirically"], v=s["generalizing_empirically"]["verdicts"]),
             "  (U: certified sup of |f - g| over every length; L: the largest |f - g| realized by an input; delta: "
             "the certified max over the training lengths; RMSE@8N: the trained network's measured test loss at 8N, a "
             "root mean square over random inputs, so it can lie far below U and L)",
             "  task                 N  seeds  cert/fail/und  median U   median L   median delta  median RMSE@8N"]
    for t in s["tasks"]:
        for r in t["rows"]:
            vv = r["verdicts"]
            rm = r["measured_rmse"].get("8") or next(iter(r["measured_rmse"].values()))
            lines.append(f"  {t['task']:<19} {r['N']:>3}  {r['seeds']:>5}  {vv['certified']:>4}/{vv['fails']}/"
                         f"{vv['undetermined']:<5}  {_med(r['upper']):<9.4g}  {_med(r['lower']):<9.4g}  "
                         f"{_med(r['delta']):<12.4g}  {_med(rm):.4g}")
    lines += [f"  refused: {g['task']} N = {g['N']}, {g['seeds']} seed(s): {g['reason']}" for g in s.get("refused", [])]
    lines += horizon_text(s)
    return "\n".join(lines)


#: failing strings up to this many symbols are printed whole in the horizon table; longer ones below it
SHORT_IN_TABLE = 40


def _short_witness(w) -> str:
    if w is None:
        return ""
    if isinstance(w, str):
        return repr(w) if len(w) <= SHORT_IN_TABLE else f"{w[:18]!r}...{w[-18:]!r} (whole below)"
    return f"counts {w['counts']}"


def horizon_text(s: dict) -> list:
    """The horizon table of :func:`summary_text`: per task, training length and certificate."""
    rows = [(t["task"], r, which, hz) for t in s["tasks"] for r in t["rows"]
            for which, hz in r.get("horizon", {}).items()]
    if not rows:
        return []
    if all(hz["without_horizon"] == hz["seeds"] for *_, hz in rows):
        return ["certified horizon: not in these records (made before bounds.certify.horizon; certifying the run "
                "folder again adds H and X)"]
    lines = ["certified horizon per seed (model lengths, the input's symbols plus $; N + 1 = the training length): "
             "H = every input up to length H is within delta + eps (certified), X = the shortest failing input found",
             "  task                 N  certificate   median H/(N+1)  >=1e3(N+1)  >=1e9(N+1)  every length  "
             "shortest X  (its input)"]
    for task, r, which, hz in rows:
        med = hz["median_H_over_train"]
        medtxt = "n/a" if med is None else ("inf" if med == math.inf else f"{med:.4g}")
        n_h = hz["seeds"] - hz["without_horizon"]
        if hz["without_horizon"]:
            medtxt += f" ({hz['without_horizon']} without)"
        lines.append(f"  {task:<19} {r['N']:>3}  {which:<12}  {medtxt:<14}  {hz['at_least']['1000']:>4}/{n_h:<5}  "
                     f"{hz['at_least']['1000000000']:>4}/{n_h:<5}  {hz['every_length']:>6}/{n_h:<5}  "
                     f"{hz['shortest_X'] if hz['shortest_X'] is not None else '-'!s:<10}  "
                     f"{_short_witness(hz['shortest_witness'])}")
    whole = [(task, r, which, hz) for task, r, which, hz in rows if hz["shortest_X"] is not None
             and not (isinstance(hz["shortest_witness"], str) and len(hz["shortest_witness"]) <= SHORT_IN_TABLE)]
    if whole:
        lines.append("  the shortest failures cut above, whole (the string up to 10^5 symbols, else its class counts):")
    for task, r, which, hz in whole:
        w = hz["shortest_witness"]
        text = repr(w) if isinstance(w, str) else (
            f"class counts {w['counts']}, window {w['window']} (class = token id * Delta + residue; "
            f"{write_out(hz['shortest_X'], write_command(s.get('records_file'), hz.get('shortest_seed_key')))})")
        lines.append(f"    {task} N = {r['N']} {which}: first failure at length {hz['shortest_X']}: {text}")
    return lines


def write_command(records: str | None, key: str | None) -> str:
    """The one command that writes a --runs record's failing input to a file (``FILE``: the user's name)."""
    import shlex

    return (f"python -m bounds.certify --write-witness {shlex.quote(records or 'RECORDS.jsonl')} --seed-key "
            f"{shlex.quote(key or 'RUN_KEY:SEED:CERTIFICATE')} --out FILE")


def figures(s: dict) -> dict:
    """Certified sup |f - g| (median and range over seeds) and the realized lower bound against N, beside the
    measured RMSE at 8N, one panel per task: ``{"certify-modp": Figure, "certify-simple": Figure}``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = {}
    for kind in ("modp", "simple"):
        tasks = [t for t in s["tasks"] if t["task_kind"] == kind]
        if not tasks:
            continue
        fig, axes = plt.subplots(1, len(tasks), figsize=(3.4 * len(tasks), 3.2), squeeze=False)
        for ax, t in zip(axes[0], tasks, strict=True):
            Ns = [r["N"] for r in t["rows"]]
            ax.plot(Ns, [_med(r["upper"]) for r in t["rows"]], "o-", label="certified sup |f - g| (median)")
            ax.fill_between(Ns, [min(r["upper"]) for r in t["rows"]], [max(r["upper"]) for r in t["rows"]],
                            alpha=0.2)
            ax.plot(Ns, [_med(r["lower"]) for r in t["rows"]], "s--", label="realized input (median)")
            ax.plot(Ns, [_med(r["delta"]) for r in t["rows"]], "x:", label="delta (max up to N)")
            if all("8" in r["measured_rmse"] for r in t["rows"]):
                ax.plot(Ns, [_med(r["measured_rmse"]["8"]) for r in t["rows"]], "^:", label="measured RMSE at 8N")
            ax.set_yscale("log")
            ax.set_xlabel("training length N")
            ax.set_title(t["task"], fontsize=9)
        axes[0][0].set_ylabel("|f - g|")
        axes[0][0].legend(fontsize=7)
        out[f"certify-{kind}"] = fig
    out.update(horizon_figures(s))
    return out


#: the two certificates of a --runs record: (record field, legend text, marker, x offset factor)
CERTIFICATES = (("construction", "against the App. A.2 construction", "o", 0.96),
                ("target", "against the task's function", "s", 1.04))


def _has_horizon(t: dict) -> bool:
    return any(hz["seeds"] > hz["without_horizon"] for r in t["rows"] for hz in r.get("horizon", {}).values())


def horizon_figures(s: dict) -> dict:
    """The certified horizon against the training length, one panel per task: each seed's H / (N + 1) (log y;
    :mod:`bounds.certify.horizon`) for both certificates, their median, the seeds certified at every length as
    triangles on a line at the top, and the bracket ``lower <= N* <= upper`` of ``bounds.estimate`` for the task's
    class as vertical lines at N = N* - 1 (model length N* reached by training length N* - 1) where it lies on
    the axis.  ``{"certify-horizon-modp": Figure, ...}``; tasks whose records carry no horizon are left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = {}
    for kind in ("modp", "simple"):
        tasks = [t for t in s["tasks"] if t["task_kind"] == kind and _has_horizon(t)]
        if not tasks:
            continue
        fig, axes = plt.subplots(1, len(tasks), figsize=(max(4.4, 3.6 * len(tasks)), 4.4), squeeze=False)
        for ax, t in zip(axes[0], tasks, strict=True):
            finite = [h / hz["train_length"] for r in t["rows"] for hz in r.get("horizon", {}).values()
                      for h in hz["H"] if h is not None]
            top = 10 * max(finite + [10.0])
            Ns = [r["N"] for r in t["rows"]]
            for which, label, marker, dx in CERTIFICATES:
                xs, ys, tx, meds, med_x = [], [], [], [], []
                for r in t["rows"]:
                    hz = r.get("horizon", {}).get(which)
                    if not hz or hz["seeds"] == hz["without_horizon"]:
                        continue
                    for h in hz["H"]:
                        if h is None:
                            tx.append(r["N"] * dx)
                        else:
                            xs.append(r["N"] * dx)
                            ys.append(max(h, 1) / hz["train_length"])
                    m = hz["median_H_over_train"]
                    med_x.append(r["N"] * dx)
                    meds.append(top if m == math.inf else m)
                if not med_x:
                    continue
                line, = ax.plot(med_x, meds, "-", lw=1, label=f"median H/(N+1), {label}")
                ax.plot(xs, ys, marker, ls="none", ms=4, alpha=0.6, color=line.get_color())
                if tx:
                    ax.plot(tx, [top] * len(tx), "^", ls="none", ms=7, color=line.get_color(),
                            label=f"certified at every length ({len(tx)} seeds), {label}")
            ax.axhline(top, color="0.6", lw=0.6, ls=":")
            br = t.get("bracket") or {}
            lo_x, hi_x = min(Ns), max(Ns)
            for side, style in (("lower", "--"), ("upper", "-.")):
                v = br.get(side)
                if v is not None and v - 1 <= 100 * hi_x:
                    ax.axvline(v - 1, color="k", ls=style, lw=0.8,
                               label=f"{side} bound N* {'>=' if side == 'lower' else '<='} {v} (bounds.estimate, "
                                     f"eps = {br['eps']})")
            if br.get("upper") is not None and br["upper"] - 1 > 100 * hi_x:
                ax.plot([], [], " ", label=f"upper bound N* <= {br['upper']} (off the axis)")
            ax.set_yscale("log")
            ax.set_ylim(min(finite + [1.0]) / 3, top * 3)
            if max(hi_x, (br.get("lower") or 0) - 1) > 10 * lo_x:
                ax.set_xscale("log")
            ax.set_xlabel("training length N (symbols)")
            ax.set_title(t["task"], fontsize=9)
            ax.legend(fontsize=5.5, loc="upper center", bbox_to_anchor=(0.5, -0.2))
        axes[0][0].set_ylabel("certified horizon H / (N + 1)")
        fig.suptitle(f"certified horizon, eps = {s['eps']} (triangles at the top: every length)", fontsize=8)
        fig.tight_layout()
        out[f"certify-horizon-{kind}"] = fig
    return out


def plot(s: dict, folder: str, source: str) -> list:
    """Save :func:`figures` as ``<folder>/<stem>-<name>.png`` and ``.svg`` with their data embedded (``name`` from a
    summary file ``izzo2025-certify-<name>.json``, the names ``python -m bounds.experiments.figures`` redraws)."""
    from lengthgen_cli.figure_data import save

    name = source[len("izzo2025-certify-"):-len(".json")] if source.startswith("izzo2025-certify-") else "runs"
    written = []
    for stem, fig in figures(s).items():
        written += save(fig, os.path.join(folder, f"{stem}-{name}"), source, dpi=110, within=folder)
    return written

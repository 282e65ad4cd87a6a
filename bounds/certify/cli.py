"""``python -m bounds.certify``: is a trained one-layer transformer right at EVERY length?  A certificate, or the input
where it fails.

Izzo et al. Theorem 4.1 asks whether agreement ``|f - g| <= delta`` on every input up to a training length N
implies ``|f - g| <= delta + eps`` on every input.  For a concrete pair this is decidable in practice
(:mod:`bounds.certify.search`): every length up to N0 is enumerated by class configuration (N0 picked within a
quarter of the time budget), every longer input is a point of a compact domain (rho = 1/n, class shares, phase,
window) covered by interval branch-and-bound with outward rounding (:mod:`bounds.certify.class_softmax`), and the best
lower bound is a real input evaluated with certified arithmetic.  The verdict:

* ``certified``: ``|f - g| <= U`` at every length, and ``U <= delta + eps``;
* ``fails``: a realized input (printed, or described by its class counts when long) gives ``|f - g| > delta + eps``;
* ``undetermined``: the gap ``[L, U]`` straddles ``delta + eps``.

Semantics (printed, with where it came from): by default each model is evaluated under the precision model its
file declares (``"precision": "izzo"``: the sec. 3.2 precision model with the file's p; the ``huang`` model is
refused); ``--semantics softmax|izzo`` evaluates both models under another (``softmax``: the exact-exponential
softmax a trained network computes, ``n^a`` weights, nothing flushed), ``--against-semantics`` g's alone.

Modes::

    python -m bounds.certify --model f.json --against g.json --eps 1/10 [--delta D | --train-length N]
    python -m bounds.certify --model f.json --target-fn --task modp --period 3 [--index K]
    python -m bounds.certify --runs runs/izzo2025-quick [--target-fn] --out certs.jsonl [--resume] [--workers 2]
    python -m bounds.certify --runs runs/izzo2025-paper --executor ray --ray-address auto --out certs.jsonl
    python -m bounds.certify --export-model runs/izzo2025-quick/RUN.json --seed-index 0 --out model.json
    python -m bounds.certify --write-witness cert.json --out witness.txt

Every verdict leads with the certified horizon (:mod:`bounds.certify.horizon`): the largest length H up to which
every input is within delta + eps, and the shortest failing input X found.  Lengths are model lengths (the
input's symbols plus the leading ``$``), from 2 in every mode unless ``--first-length`` says otherwise.

``--runs DIR`` reads every record of a ``bounds.experiments.measure`` run folder, converts each trained seed
(:func:`bounds.certify.trained.from_record`, softmax semantics), certifies it against its task's App. A.2
construction (izzo semantics, exact at every length; with ``--target-fn`` also against the task's true function)
with delta = the certified max over lengths 2..N (the training lengths; the empty input is never trained) and
writes one JSON line per (run, seed) beside the measured test loss at 2, 4, 8 N (``--out``, resumable), the
seeds run by the sweeps' executors (``--workers K`` local processes, or ``--executor ray`` on a cluster:
:mod:`lengthgen_cli.sweep`).
``--summary FILE`` and ``--plots DIR`` write the table and figure of docs/certify.md.  Usage errors exit 2 with
one line.
"""

from __future__ import annotations

import os
import sys
import time

from bounds.certify.horizon import horizon_line
from lengthgen_cli import (
    Parser,
    UsageError,
    add_eps_option,
    add_json_option,
    add_output_options,
    bounded_int,
    command,
    finite_real,
    rational,
)
from lengthgen_cli.options import strict_json
from lengthgen_cli.progress import bound_progress

MAX_BUDGET = 86_400.0
MAX_LENGTH = 4096
MAX_WORKERS = 64
MAX_EPS = 10**300  # --eps and --delta (|f - g| of any model the certifier evaluates is far below this)
MAX_OMEGA = 2**20  # SimpleTask frequency of --target-fn
CONSTRUCTION_SEMANTICS = "izzo"  # the App. A.2 constructions are exact under their own precision model


def _parser():
    from bounds.certify.search import MAX_BOXES

    ap = Parser(module="bounds.certify",
                description="Certified sup |f - g| over every input length of one-layer models, or a failing input.")
    ap.add_argument("--model", help="model file f.json")
    ap.add_argument("--against", help="model file g.json")
    ap.add_argument("--target-fn", action="store_true",
                    help="compare against the task's true function (with --task; in --runs mode: as well as the "
                         "construction)")
    from bounds.certify.gpt2_cli import task_name

    ap.add_argument("--task", type=task_name, help="the task of --target-fn (pair mode: modp, simple); with a GPT-2 "
                    "--model, a Figure 1 task of Huang et al. (binary_majority, majority_letters, parity)")
    ap.add_argument("--period", type=bounded_int(1, 64, "MAX_PERIOD = 64"), default=None,
                    help="ModP period p (with --task modp)")
    ap.add_argument("--index", type=bounded_int(0, 4096, "4096"), default=0, help="ModP index k (default 0)")
    ap.add_argument("--omega", type=rational(positive=True, high=MAX_OMEGA, high_name="MAX_OMEGA = 2^20"), default=None,
                    help="SimpleTask frequency (--task simple)")
    ap.add_argument("--runs", metavar="DIR", help="a bounds.experiments.measure run folder: certify every trained seed")
    add_eps_option(ap)
    ap.add_argument("--delta", type=rational(nonnegative=True), default=None,
                    help="agreement delta (default 0; pair mode)")
    ap.add_argument("--train-length", type=bounded_int(1, MAX_LENGTH, f"MAX_LENGTH = {MAX_LENGTH}"), default=None,
                    help="delta := the certified max |f - g| over lengths up to N (pair mode)")
    ap.add_argument("--semantics", choices=("softmax", "izzo"), default=None,
                    help="evaluate the models' attention as exact softmax (a trained network) or the izzo precision "
                         "model (default: the precision model each file declares)")
    ap.add_argument("--against-semantics", choices=("softmax", "izzo"), default=None,
                    help="g's attention alone (default: --semantics, else the precision model g's file declares)")
    ap.add_argument("--time-budget", type=finite_real(positive=True, high=MAX_BUDGET, high_name="MAX_BUDGET"),
                    default=60.0, help="seconds: pair mode, the whole command's (start-up included); --runs, each "
                                       "certificate's (a seed has two with --target-fn) (default 60)")
    ap.add_argument("--max-length", type=bounded_int(1, MAX_LENGTH, f"MAX_LENGTH = {MAX_LENGTH}"), default=None,
                    help="enumerate exactly up to this N0 (default: picked within a quarter of the budget)")
    ap.add_argument("--first-length", type=bounded_int(1, MAX_LENGTH, f"MAX_LENGTH = {MAX_LENGTH}"), default=None,
                    help="smallest model length certified (default 2 in every mode: the empty input, model length "
                         "1, is never trained)")
    ap.add_argument("--max-boxes", type=bounded_int(1, MAX_BOXES, f"MAX_BOXES = {MAX_BOXES}"), default=MAX_BOXES,
                    help=f"stop branch-and-bound after this many boxes split (default {MAX_BOXES}); with "
                         "--max-length and a time budget that is not reached, the certificate does not depend on "
                         "the machine's speed")
    ap.add_argument("--gap", type=finite_real(positive=True), default=None,
                    help="stop branch-and-bound at this gap U - L (default eps/10)")
    add_output_options(ap, kind="jsonl", what="one certificate record per trained seed (--runs; with "
                       "--export-model the model file, with --write-witness the string)")
    ap.add_argument("--export-model", metavar="RUN.json",
                    help="write seed --seed-index of a trained run record (a file of a bounds.experiments.measure run "
                         "folder) to --out as a model file (.json, or .npz), for --model")
    ap.add_argument("--seed-index", type=bounded_int(0, 4096, "4096"), default=0,
                    help="which seed of the run record --export-model writes (default 0)")
    ap.add_argument("--write-witness", metavar="CERT.json",
                    help="write the shortest failing input of a --json certificate to --out (when too long to print); "
                         "with --seed-key, of one seed's certificate in a --runs records file")
    ap.add_argument("--seed-key", metavar="RUN_KEY:SEED:CERTIFICATE",
                    help="with --write-witness RECORDS.jsonl: the run key and seed of a --runs record and which of its "
                         "certificates (target or construction), as the --runs table prints it")
    from lengthgen_cli.sweep import add_executor_options

    add_executor_options(ap, MAX_WORKERS, workers_help="local processes certifying seeds in parallel (--runs; "
                         "default 1: in this process)")
    ap.add_argument("--seeds", type=bounded_int(1, 256, "256"), default=None,
                    help="certify only the first S seeds of each run (--runs)")
    ap.add_argument("--summary", metavar="FILE", help="write the per-task summary JSON (--runs)")
    ap.add_argument("--summarize-only", action="store_true",
                    help="certify nothing: summarize (and plot) the records already in --out FILE")
    ap.add_argument("--plots", metavar="DIR", help="write the certified-against-measured figure (--runs)")
    from bounds.certify.gpt2_cli import add_options as add_gpt2_options

    add_gpt2_options(ap)  # --config, --bos, --alphabet: a one-layer GPT-2 --model (a directory or a state_dict)
    add_json_option(ap)
    return ap


# --------------------------------------------------------------------------------------------- pair mode
def _load(path: str):
    from constructions.limit_transformer.errors import ModelFormatError
    from constructions.limit_transformer.serialize import load_model

    try:
        return load_model(path)
    except (ModelFormatError, ValueError, OSError) as e:
        raise UsageError(str(e).splitlines()[0]) from None


def _describe_semantics(sem: str, model, source: str | None = None) -> str:
    text = "softmax (exact exp, nothing flushed)" if sem == "softmax" else f"izzo (p = {model.precision_bits})"
    return f"{text}, {source}" if source else text


def resolve_semantics(model, path: str, chosen: str | None) -> tuple[str, str]:
    """(semantics, where it came from) of one model: ``chosen`` (an option) or the precision model its file
    declares; the ``huang`` model, which the class-level evaluator does not implement, is refused in one line."""
    if chosen is not None:
        return chosen, "--semantics"
    if model.precision != "izzo":
        raise UsageError(f"{path} declares the {model.precision!r} precision model, which bounds.certify does not "
                         "evaluate; give --semantics softmax|izzo to evaluate it under another")
    return "izzo", "declared by the file"


def check_consistency(args) -> None:
    """Values the options take together, refused here in one line before any work (the options a mode does not
    use are refused by :func:`check_options`)."""
    if args.eps > MAX_EPS or (args.delta is not None and args.delta > MAX_EPS):
        raise UsageError("--eps and --delta must be at most MAX_EPS = 10^300")
    if args.task is not None and args.task not in TASK_OPTIONS:
        raise UsageError(f"--task {args.task} is a target of a one-layer GPT-2 --model (a directory or a state_dict); "
                         f"the pair mode's tasks are {', '.join(TASK_OPTIONS)}")
    if args.against_semantics and args.target_fn:
        raise UsageError("--against-semantics is g's; --target-fn compares with the task's true function")
    mx, tl, fl = args.max_length, args.train_length, args.first_length
    if mx is not None and tl is not None and tl > mx:
        raise UsageError(f"--train-length {tl} needs --max-length >= {tl}: delta is the max |f - g| over every "
                         "length up to the training length")
    if mx is not None and fl is not None and fl > mx:
        raise UsageError(f"--first-length {fl} exceeds --max-length {mx}: no length would be enumerated")
    if tl is not None and fl is not None and fl > tl:
        raise UsageError(f"--first-length {fl} exceeds --train-length {tl}: delta would range over no length")


def text_report(rec: dict, f_name: str, g_name: str, f, g) -> str:
    sem = rec["semantics"]
    src = rec.get("semantics_source") or [None, None]
    lines = [f"horizon: {horizon_line(rec)}",
             "  (lengths are model lengths: the input's symbols plus the leading $)",
             f"f = {f_name}, g = {g_name}",
             f"semantics: f {_describe_semantics(sem[0], f, src[0])}, g "
             + (_describe_semantics(sem[1], g, src[1]) if sem[1] else "the true function")]
    rows = rec["lengths"]
    if rows:
        lines.append(f"lengths {rows[0]['length']}..{rec['N0']} (N0 = {rec['N0']}): max |f - g| per length, "
                     "certified [lower, upper] (lower attained by the string)")
    else:
        lines.append("no length was enumerated within the time budget (the command's start-up counts into it)")
    for r in rows:
        lines.append(f"  n = {r['length']:>4} ({r['configurations']} configurations): [{r['lower']:.6g}, "
                     f"{r['upper']:.6g}]  {r['witness']!r}")
    lines.append(f"every length > {rec['N0']}: sup |f - g| <= {rec['long_upper']:.6g} (certified; "
                 f"{rec['boxes_split']} boxes split, {rec['boxes_open']} open), >= {rec['long_lower']:.6g} (realized)")
    reached = rec.get("reached") or {}
    if reached.get("budget_spent"):
        lines.append(f"time budget spent: lengths enumerated up to {reached['enumerated_to']} of "
                     f"{reached['enumeration_target']}, {reached['pieces_bounded']} of {reached['pieces']} "
                     "(phase, window) pieces bounded (a piece or length not reached leaves the upper bound at inf)")
    w = rec["witness"]
    if w["string"] is None:
        wtxt = (f"of length {w['length']} with class counts {w['counts']} and window {w.get('window')} "
                "(class = token id * Delta + residue)")
    elif len(w["string"]) > 60:
        wtxt = f"of length {w['length']} {w['string'][:28]!r}...{w['string'][-28:]!r} (--json prints it whole)"
    else:
        wtxt = repr(w["string"])
    d = rec["delta"]
    dtxt = f"{d[0]:.6g}" if d[0] == d[1] else f"[{d[0]:.6g}, {d[1]:.6g}]"
    if rec["verdict"] == "certified":
        v = f"certified: |f - g| <= {rec['upper']:.6g} at every length (<= delta + eps = {dtxt} + {rec['eps']:.6g})"
    elif rec["verdict"] == "fails":
        v = f"fails: the input {wtxt} gives |f - g| >= {rec['lower']:.6g} > delta + eps = {dtxt} + {rec['eps']:.6g}"
    else:
        v = (f"undetermined, gap [{rec['lower']:.6g}, {rec['upper']:.6g}] around delta + eps = {dtxt} + "
             f"{rec['eps']:.6g}")
    if rec["verdict"] == "fails":
        v += " (the largest |f - g| found; the horizon above gives the shortest failure)"
    lines.append(f"verdict: {v}")
    lines.append(f"gap U - L = {rec['gap']:.3g}, time {rec['seconds']:.1f} s, N0 = {rec['N0']}, "
                 f"{rec['boxes_split']} boxes split; best input {wtxt}")
    return "\n".join(lines)


def process_age() -> float:
    """Seconds since this process started (Linux /proc; 0 elsewhere): the interpreter's start-up and imports count
    into a command's time budget."""
    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            start_ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


def _pair(args, started: float):
    from bounds.certify.search import FIRST_LENGTH, Problem, certificate_record, certify, task_target

    if args.model is None:
        raise UsageError("give --model FILE (with --against FILE or --target-fn), or --runs DIR")
    f = _load(args.model)
    target = None
    if args.target_fn:
        if args.against:
            raise UsageError("give either --against FILE or --target-fn, not both")
        if args.task is None:
            raise UsageError("--target-fn needs --task modp|simple (and --period or --omega)")
        if args.task == "modp" and args.period is None:
            raise UsageError("--task modp needs --period P")
        if args.task == "simple" and args.omega is None:
            raise UsageError("--task simple needs --omega W")
        params = {"period": args.period, "index": args.index} if args.task == "modp" else {"omega": str(args.omega)}
        target = task_target(args.task, params)
        g = None
    elif args.against is None:
        raise UsageError("give --against FILE or --target-fn")
    else:
        g = _load(args.against)
    if args.delta is not None and args.train_length is not None:
        raise UsageError("give either --delta or --train-length, not both")
    sem_f, src_f = resolve_semantics(f, args.model, args.semantics)
    if g is None:
        sem_g, src_g = sem_f, src_f  # the target has no attention
    else:
        sem_g, src_g = resolve_semantics(g, args.against, args.against_semantics or args.semantics)
        if args.against_semantics:
            src_g = "--against-semantics"
    prob = Problem(f, g, (sem_f, sem_g), target)
    eps = float(args.eps)
    bar, tick = bound_progress()
    try:
        left = max(0.0, args.time_budget - (time.perf_counter() - started))  # the budget is the whole command's
        cert = certify(prob, eps, float(args.delta or 0), args.train_length, left, args.gap,
                       args.max_length, tick, args.first_length or FIRST_LENGTH, max_boxes=args.max_boxes)
    finally:
        bar.close()
    rec = certificate_record(cert, prob)
    rec.update(model=args.model, against=args.against if g is not None else target.name,
               semantics_source=[src_f, src_g if g is not None else None])
    if args.json:
        return strict_json(rec)
    return text_report(rec, args.model, rec["against"], f, g)


#: options by the mode that uses them (each mode refuses the others': :func:`check_options`)
TASK_OPTIONS = {"modp": ("--period", "--index"), "simple": ("--omega",)}
PAIR_OPTIONS = ("--model", "--against", "--task", "--period", "--index", "--omega", "--delta", "--train-length",
                "--semantics", "--against-semantics")
RUNS_OPTIONS = ("--workers", "--executor", "--ray-address", "--seeds", "--summary", "--summarize-only", "--plots", "--out", "--resume")
FILE_OPTIONS = ("--export-model", "--seed-index", "--write-witness", "--seed-key")
SEARCH_OPTIONS = ("--target-fn", "--time-budget", "--max-length", "--max-boxes", "--first-length", "--gap",
                  "--workers", "--executor", "--ray-address", "--seeds")

ALL_OPTIONS = tuple(dict.fromkeys((*PAIR_OPTIONS, *RUNS_OPTIONS, *SEARCH_OPTIONS, *FILE_OPTIONS, "--runs",
                                   "--eps", "--json")))


def check_options(args, given: set) -> None:
    """Refuse in one line every option given that the mode asked for does not use."""
    from lengthgen_cli import refuse_unused

    if args.export_model or args.write_witness:
        if args.export_model and args.write_witness:
            raise UsageError("give either --export-model or --write-witness, not both")
        keep = (("--out", "--export-model", "--seed-index") if args.export_model
                else ("--out", "--write-witness", "--seed-key"))
        refuse_unused(given, [o for o in ALL_OPTIONS if o not in keep],
                      "--export-model / --write-witness write one file")
        return
    refuse_unused(given, ("--seed-index",), "--seed-index picks the seed --export-model writes")
    refuse_unused(given, ("--seed-key",), "--seed-key picks the certificate --write-witness writes")
    if args.summarize_only:
        refuse_unused(given, (*PAIR_OPTIONS, *SEARCH_OPTIONS), "--summarize-only certifies nothing")
        return
    if args.runs:
        if args.executor != "ray":
            refuse_unused(given, ("--ray-address",), "--ray-address is the Ray cluster of --executor ray")
        from lengthgen_cli.sweep import check_executor

        check_executor(args.executor, args.workers)
        refuse_unused(given, PAIR_OPTIONS, "--runs certifies each trained seed against its task's construction (the "
                                           "task, semantics and delta come from the run records)")
        return
    refuse_unused(given, RUNS_OPTIONS, "pair mode certifies one pair and prints its certificate (these are --runs "
                                       "options)")
    if not args.target_fn:
        refuse_unused(given, ("--task", *TASK_OPTIONS["modp"], *TASK_OPTIONS["simple"]),
                      "the task is the target of --target-fn")
    elif args.task is not None:
        other = "simple" if args.task == "modp" else "modp"
        refuse_unused(given, TASK_OPTIONS[other], f"--task {args.task} does not use it")


def check_model_paths(args) -> None:
    """Refuse a --model or --against that is missing or is neither a regular file nor a directory (a device, a
    pipe), before its path decides which kind of model it is read as."""
    for opt, path in (("--model", args.model), ("--against", args.against)):
        if path is None:
            continue
        if not os.path.exists(path):
            raise UsageError(f"{opt} {path}: no such file or directory")
        if not (os.path.isfile(path) or os.path.isdir(path)):
            raise UsageError(f"{opt} {path}: not a regular file or a directory")


@command
def main(argv=None) -> int:
    # the budget is the whole command's: from the process's start on the command line, from this call in-process
    started = time.perf_counter() - (process_age() if argv is None else 0.0)
    from lengthgen_cli import given_options

    ap = _parser()
    args = ap.parse_args(argv)
    from bounds.margin import BoundsError

    try:
        from bounds.certify import gpt2_cli

        check_model_paths(args)
        if gpt2_cli.is_gpt2(args.model):
            print(gpt2_cli.run(args, given_options(ap, argv), started))
            return 0
        from lengthgen_cli import refuse_unused

        refuse_unused(given_options(ap, argv), gpt2_cli.OPTIONS, "only a GPT-2 --model (a directory or a state_dict) "
                      "uses them")
        check_options(args, given_options(ap, argv))
        if args.export_model or args.write_witness:
            from bounds.certify.export import export_model, write_witness

            out = (export_model(args.export_model, args.seed_index, args.out) if args.export_model
                   else write_witness(args.write_witness, args.out, args.seed_key))
        elif args.runs or args.summarize_only:
            check_consistency(args)
            from bounds.certify.runs import run as run_runs

            out = run_runs(args)
        else:
            check_consistency(args)
            out = _pair(args, started)
    except (UsageError, BoundsError, ValueError) as e:
        print(f"bounds.certify: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

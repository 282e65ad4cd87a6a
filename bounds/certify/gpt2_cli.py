"""``python -m bounds.certify --model DIR --against DIR2`` and ``--model DIR --task NAME --margin MU`` for
one-layer GPT-2 models, NoPE or with a periodic position table (pairs only; Hugging Face ``save_pretrained`` directories, or ``.pt`` / ``.pth`` / ``.bin``
state_dicts with ``--config``).

The pair certificate is :func:`bounds.certify.gpt2_search.certify_pair` (Izzo et al. Theorem 4.1's question for a
concrete pair: ``max_j |f_j - g_j| <= eps`` at every length); the model against its task (a Figure 1 task of Huang
et al. whose answer is a function of the counts, :mod:`bounds.certify.gpt2_targets`) is
:func:`bounds.certify.gpt2_task.certify_task`.  With ``--write-onnx CERT.json --out DIR`` the failing input of a pair
certificate (``--json``) is written as an ONNX graph and a VNN-LIB property (:func:`bounds.certify.export.write_onnx`).
Options of the other modes are refused in one line.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import time

from lengthgen_cli import (
    UsageError,
    bounded_int,
    finite_real,
    int_list,
    rational,
    refuse_unused,
    require_regular_file,
)
from lengthgen_cli.options import strict_json
from lengthgen_cli.progress import bound_progress

STATE_DICT_SUFFIXES = (".pt", ".pth", ".bin")
MAX_TOKEN_ID = 1_000_000
LOAD = ("--config", "--bos", "--alphabet")  # how a GPT-2 model is read
OPTIONS = (*LOAD, "--write-onnx")  # used with a GPT-2 --model only
TASK_OPTIONS = ("--margin", "--logit-margin", "--readout")
SEARCH = ("--time-budget", "--max-length", "--max-boxes", "--json")
USED = ("--model", "--against", *LOAD, "--eps", *SEARCH)
TASK_USED = ("--model", "--task", "--target-fn", *LOAD, *TASK_OPTIONS, *SEARCH)
ONNX_USED = ("--model", "--against", *LOAD, "--write-onnx", "--out")
ONNX_TASK_USED = ("--model", "--config", "--write-onnx", "--out")  # BOS and alphabet: the task certificate's
MAX_LOGIT_MARGIN = 1e6


MAX_MARGINS = 32


def margins(text: str) -> list:
    """argparse type of ``--margin``: comma-separated exact rationals in [0, 1], returned distinct, largest first."""
    item = rational(nonnegative=True, high=1, high_name="1")
    parts = [p for p in text.split(",") if p.strip()]
    if not parts or len(parts) > MAX_MARGINS:
        raise argparse.ArgumentTypeError(f"give 1 to MAX_MARGINS = {MAX_MARGINS} margins, comma-separated")
    return sorted({item(p) for p in parts}, reverse=True)


def task_name(text: str) -> str:
    """argparse type of ``--task``: a name (lower-case letters, digits, ``_``); which names are tasks is decided by
    the mode (the pair mode's modp / simple, a GPT-2 model's targets)."""
    if not re.fullmatch(r"[a-z][a-z0-9_]{0,63}", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a task name (lower-case letters, digits, _)")
    return text


def add_options(ap) -> None:
    ap.add_argument("--config", metavar="CONFIG.json",
                    help="GPT2Config JSON of a state_dict --model / --against (one-layer NoPE GPT-2)")
    ap.add_argument("--bos", type=bounded_int(0, MAX_TOKEN_ID, f"{MAX_TOKEN_ID}"), default=None,
                    help="BOS token id of a GPT-2 model (default: its tokenizer's, else its config's)")
    ap.add_argument("--alphabet", type=int_list(0, MAX_TOKEN_ID, f"{MAX_TOKEN_ID}", max_items=64), default=None,
                    help="comma-separated token ids an input of a GPT-2 model may contain (default: its tokenizer's "
                         "non-special ids, else every id but BOS; with --task: the letters, a subset of the task's)")
    ap.add_argument("--margin", type=margins, default=None, metavar="MU[,MU...]",
                    help="with --task: certify every input whose task margin is at least MU (majority: (largest "
                         "letter count - second) / length; ties never count); several, comma-separated: each is "
                         f"certified, largest first (at most {MAX_MARGINS})")
    ap.add_argument("--logit-margin", type=finite_real(nonnegative=True, high=MAX_LOGIT_MARGIN,
                                                       high_name="1e6"), default=0.0,
                    help="with --task: the right answer's logit must exceed every competitor's by more than this "
                         "(default 0: the decision is right)")
    ap.add_argument("--readout", choices=("argmax", "classes"), default="argmax",
                    help="with --task: competitors of the answer's logit: every output (argmax, default: Huang et "
                         "al.'s exact match) or the task's answer tokens only (classes)")
    ap.add_argument("--write-onnx", metavar="CERT.json",
                    help="write the failing input of a GPT-2 --json certificate of --model / --against into the "
                         "folder --out DIR: an ONNX graph of f - g at its length and a VNN-LIB property")


def is_gpt2(path) -> bool:
    """Whether ``--model`` names a GPT-2 model (a directory or a state_dict file) rather than a model file."""
    return path is not None and (os.path.isdir(path) or str(path).endswith(STATE_DICT_SUFFIXES))


def _load(path: str, args, bos=None, alphabet=None, absolute: bool = False):
    from transformers.utils import logging as hf_logging

    from bounds.certify.gpt2 import FormError, load

    hf_logging.disable_progress_bar()  # the error stream carries one line on an error, no progress bars
    hf_logging.set_verbosity_error()
    if not os.path.isdir(path):
        require_regular_file(path, "GPT-2 state_dict")
    if args.config is not None:
        require_regular_file(args.config, "GPT-2 config")
    try:
        return load(path, config=args.config, bos=args.bos if bos is None else bos,
                    alphabet=args.alphabet if alphabet is None else alphabet, absolute=absolute)
    except FormError as e:
        raise UsageError(f"{path}: {e}") from None


def _nope_only(form, path: str, why: str) -> None:
    """A one-line refusal of a model with positions where only NoPE is handled."""
    if form.wpe is not None:
        raise UsageError(f"{path} has {form.positions}: {why}")


def _check_against(args) -> None:
    if args.against is None:
        raise UsageError("a GPT-2 --model needs --against DIR (a second one-layer GPT-2)")
    if not is_gpt2(args.against):
        raise UsageError(f"--against {args.against} is not a GPT-2 directory or state_dict (.pt, .pth, .bin)")


def write_onnx(args, given: set) -> str:
    """``--write-onnx CERT.json --out DIR``: the certificate's failing input (for this pair, or this model against
    its task), as files."""
    from bounds.certify import export

    export.check_onnx_target(args.out)
    data = export.read_onnx_certificate(args.write_onnx)
    if data["certificate"] == export.GPT2_TASK_CERTIFICATE:
        refuse_unused(given, [o for o in _all_options(given) if o not in ONNX_TASK_USED],
                      "--write-onnx of a task certificate writes its failing input for --model (the BOS, the "
                      "letters and delta come from the certificate)")
        bos, alphabet = export.task_reading(data)
        f = _load(args.model, args, bos=bos, alphabet=alphabet, absolute=True)  # as --task reads it
        if f.defined_up_to is None:
            _nope_only(f, args.model, "--task certifies NoPE models and absolute tables, not periodic ones, so no "
                                      "task certificate is of this model")
        return export.write_task_onnx(args.write_onnx, f, args.out, args.model)
    refuse_unused(given, [o for o in _all_options(given) if o not in ONNX_USED],
                  "--write-onnx writes the failing input of a pair certificate (its eps comes from the certificate)")
    _check_against(args)
    f, g = _load(args.model, args, absolute=True), _load(args.against, args, absolute=True)  # as certified
    return export.write_onnx(args.write_onnx, f, g, args.out, (args.model, args.against))


def run(args, given: set, started: float | None = None) -> str:
    """The GPT-2 modes; ``started`` (``time.perf_counter()`` at the command's start) makes ``--time-budget`` the
    whole command's: loading and the import check count into it, and the certificate gets what is left."""
    from bounds.certify.export import GPT2_CERTIFICATE
    from bounds.certify.gpt2 import import_check
    from bounds.certify.gpt2_search import certify_pair
    from bounds.certify.search import Deadline

    if args.write_onnx is not None:
        return write_onnx(args, given)
    if args.task is not None:
        return run_task(args, given, started)
    refuse_unused(given, [o for o in _all_options(given) if o not in USED],
                  "a GPT-2 pair is certified with --eps, --time-budget, --max-length, --max-boxes")
    _check_against(args)
    f, g = _load(args.model, args, absolute=True), _load(args.against, args, absolute=True)
    checks = [import_check(f, samples=8), import_check(g, samples=8)]
    bar, tick = bound_progress()
    try:
        spent = 0.0 if started is None else time.perf_counter() - started
        cert = certify_pair(f, g, float(args.eps), max_length=args.max_length or 16, budget_s=args.time_budget,
                            max_boxes=args.max_boxes, tick=tick,
                            deadline=Deadline(max(0.0, args.time_budget - spent)))
    except ValueError as e:
        raise UsageError(str(e)) from None
    finally:
        bar.close()
    rec = cert.record()
    rec.update(certificate=GPT2_CERTIFICATE, model=args.model, against=args.against, bos=f.bos,
               alphabet=list(f.alphabet), import_check=checks,
               positions=[f.positions, g.positions])
    return strict_json(rec) if args.json else report(rec)


def _all_options(given: set) -> list:
    return ["--" + g.replace("_", "-") for g in given]


def report(rec: dict) -> str:
    from bounds.certify.horizon import horizon_line

    ck = rec["import_check"]
    lines = [f"horizon: {horizon_line(rec)}",
             "  (lengths are model lengths: the input's tokens plus BOS; n below counts the tokens)"] \
        if rec.get("horizon") is not None else []
    pos = rec.get("positions") or ["NoPE", "NoPE"]
    kind = "NoPE" if pos == ["NoPE", "NoPE"] else f"f: {pos[0]}, g: {pos[1]}; classes at period {rec['period']}"
    lines += [f"f = {rec['model']}, g = {rec['against']} (one-layer GPT-2, {kind}, BOS {rec['bos']}, alphabet "
             f"{rec['alphabet']}); import check: max |torch - enclosure| {ck[0]['max_abs_difference']:.3g} (f), "
             f"{ck[1]['max_abs_difference']:.3g} (g) on {ck[0]['samples']} inputs",
             f"lengths 1..{rec['N0']}: max_j |f_j - g_j| per length, certified [lower, upper]"]
    lines += [f"  n = {n:>4}: [{lo:.6g}, {hi:.6g}]" for n, (lo, hi) in enumerate(rec["lengths"], 1)]
    lines.append(f"every length > {rec['N0']}: {rec['boxes_split']} boxes split, {rec['boxes_open']} open")
    reached = rec.get("reached") or {}
    if reached.get("enumerated_to", rec["N0"]) < reached.get("enumeration_target", rec["N0"]):
        lines.append(f"time budget spent: lengths enumerated up to {reached['enumerated_to']} of "
                     f"{reached['enumeration_target']} (nothing beyond is bounded: U = inf)")
    w = rec["witness"]
    if w["ids"] is None:
        wtxt = f"of length {w['length']} with class counts {w['counts']} (last token {w['last']})"
    else:
        fed = (f"{w['model_ids']}" if len(w["ids"]) <= 60 else "in --json's model_ids")
        wtxt = (f"token ids {w['ids']} (as the model consumes it, BOS first: {fed}"
                + ("" if w.get("output") is None else f"; largest difference at logit {w['output']}") + ")")
    R = rec.get("defined_up_to")
    if R is not None:
        lines.append(f"defined up to model length {R}: the position table has {R} rows, so the model reads at most "
                     f"{R} positions (BOS included); nothing is claimed about longer inputs (undefined beyond its "
                     "position table)")
    if rec["verdict"] == "certified" and R is not None:
        v = (f"certified: max_j |f_j - g_j| <= {rec['upper']:.6g} <= eps = {rec['eps']:.6g} on every input of model "
             f"length <= {R} (undefined beyond its position table of {R} rows)")
    elif rec["verdict"] == "certified":
        v = f"certified: max_j |f_j - g_j| <= {rec['upper']:.6g} <= eps = {rec['eps']:.6g} at every length"
    elif rec["verdict"] == "fails":
        v = (f"fails: the input {wtxt} gives |f - g| >= {rec['lower']:.6g} > eps = {rec['eps']:.6g} (torch forward: "
             f"{rec['torch_difference']})")
    elif R is not None:
        v = (f"undetermined: model lengths {rec['N0'] + 2}..{R} were not enumerated (--max-length, or the "
             f"MAX_CONFIGURATIONS inputs enumerated: each position is its own class; or the time budget), undefined beyond its position table of {R} rows")
    else:
        v = f"undetermined, gap [{rec['lower']:.6g}, {rec['upper']:.6g}] around eps = {rec['eps']:.6g}"
    lines.append(f"verdict: {v}")
    if rec["verdict"] == "fails" and w["ids"] is not None:
        lines.append("  (for a fixed-length verifier: rerun with --json > cert.json, then the same --model / --against "
                     "with --write-onnx cert.json --out DIR writes an ONNX graph and a VNN-LIB property)")
    lines.append(f"time {rec['seconds']:.1f} s")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------- against its task
def run_task(args, given: set, started: float | None = None) -> str:
    """``--model M --task NAME --margin MU``: :func:`bounds.certify.gpt2_task.certify_task`; a model with an absolute
    position table: :mod:`bounds.certify.gpt2_task_table` (on the inputs its table defines)."""
    from bounds.certify.export import GPT2_TASK_CERTIFICATE
    from bounds.certify.gpt2 import FormError, import_check, tokenizer_vocab
    from bounds.certify.gpt2_targets import MAX_LETTERS, TargetError, target
    from bounds.certify.gpt2_task import certify_task, monotone_horizons, scan_line, scan_summary
    from bounds.certify.search import Deadline

    refuse_unused(given, [o for o in _all_options(given) if o not in TASK_USED],
                  "a GPT-2 model against its task is certified with --margin, --logit-margin, --readout, "
                  "--time-budget, --max-length, --max-boxes")
    try:
        tgt = target(args.task)
        vocab = tokenizer_vocab(args.model) if os.path.isdir(args.model) else None
        ids = tgt.token_ids(vocab)
        if args.alphabet is not None:
            by_id = {ids[c]: c for c in tgt.letters}
            unknown = [a for a in args.alphabet if a not in by_id]
            if unknown:
                raise TargetError(f"--alphabet {unknown} are not token ids of {args.task}'s letters "
                                  f"({', '.join(f'{c}={ids[c]}' for c in tgt.letters)})")
            tgt = tgt.restricted([by_id[a] for a in args.alphabet])
    except (TargetError, FormError) as e:
        raise UsageError(str(e)) from None
    if len(tgt.letters) > MAX_LETTERS:
        raise UsageError(f"{args.task} has {len(tgt.letters)} letters: give at most MAX_LETTERS = {MAX_LETTERS} of "
                         "them with --alphabet (token ids); the certificate then covers inputs over those letters")
    if args.margin is None and tgt.kind != "parity":
        raise UsageError(f"--task {args.task} needs --margin MU in (0, 1]: a continuous model cannot be right on "
                         "both sides of an exact tie, so the statement covers inputs of margin >= MU")
    ids = tgt.token_ids(vocab)
    alphabet = [ids[c] for c in tgt.letters] + [ids[tgt.sep]]
    f = _load(args.model, args, bos=ids[tgt.bos] if args.bos is None else args.bos, alphabet=alphabet, absolute=True)
    if f.defined_up_to is None:
        _nope_only(f, args.model, "periodic positions are certified against another model (--against), not yet "
                                  "against a task: --task takes NoPE models (wpe = 0 or absent) and absolute tables")
    check = import_check(f, samples=8)
    common = {"certificate": GPT2_TASK_CERTIFICATE, "model": args.model, "bos": f.bos,
              "letters": {c: ids[c] for c in tgt.letters},
              "separator": ids[tgt.sep], "answers": {c: ids[c] for c in tgt.classes},
              "margin_definition": tgt.margin_text, "import_check": check}
    if f.defined_up_to is not None:
        from bounds.certify import gpt2_task_table

        records = gpt2_task_table.run(args, given, f, tgt, vocab, common, started)
        if len(records) == 1:
            return strict_json(records[0]) if args.json else gpt2_task_table.report(records[0])
        scan = scan_summary(records)
        return strict_json({**scan, **common, "task": args.task, "records": records}) if args.json else \
            gpt2_task_table.reports(records) + "\n\n" + scan_line(scan)
    records, larger = [], None
    spent = 0.0 if started is None else time.perf_counter() - started  # loading counts into the first margin's
    for i, mu in enumerate(args.margin or [0]):  # largest first: a refuted margin's witness refutes smaller ones
        bar, tick = bound_progress()
        try:
            larger = certify_task(f, tgt, mu, float(args.logit_margin), args.readout,
                                  max_length=args.max_length or 16, budget_s=args.time_budget,
                                  max_boxes=args.max_boxes, tick=tick, vocab=vocab, larger=larger,
                                  deadline=Deadline(max(0.0, args.time_budget - spent)) if i == 0 else None)
        except (ValueError, TargetError) as e:
            raise UsageError(str(e)) from None
        finally:
            bar.close()
        records.append({**larger.record(), **common})
    monotone_horizons(records)
    if len(records) == 1:
        return strict_json(records[0]) if args.json else task_report(records[0])
    scan = scan_summary(records)
    return strict_json({**scan, **common, "task": args.task, "records": records}) if args.json else "\n\n".join(
        [task_report(records[0], per_length=False),
         *(task_report(r, header=False, per_length=False) for r in records[1:]), scan_line(scan)])


def task_report(rec: dict, header: bool = True, per_length: bool = True) -> str:
    """The text of one margin's certificate (``header``: the model and the statement; ``per_length``: the table of
    the enumerated lengths)."""
    from bounds.certify.horizon import horizon_line

    ck = rec["import_check"]
    mu = rec["margin"]
    lines = [f"horizon at margin {mu}: {horizon_line(rec)}"] if rec.get("horizon") is not None else []
    if header:
        lines.append("  (lengths are model lengths: the input's letters plus # and BOS; n below counts the letters)")
        other = "any other output" if rec["readout"] == "argmax" else "other answer"
        lines += [f"{rec['model']} against {rec['task']} (one-layer NoPE GPT-2, BOS {rec['bos']}, letters "
                  f"{rec['letters']}, answer read at separator {rec['separator']}, answers {rec['answers']}); import "
                  f"check: max |torch - enclosure| {ck['max_abs_difference']:.3g} on {ck['samples']} inputs",
                  f"statement: every input of every length with {rec['margin_definition']} >= MU (ties excluded) "
                  f"has gap = logit(answer) - max logit({other}) > {rec['logit_margin']:.6g}"]
    if per_length:
        lines.append(f"lengths 1..{rec['N0']}: inputs in the statement, certified min gap [lower, upper]")
        for n, (count, lo, hi) in enumerate(rec["lengths"], 1):
            lines.append(f"  n = {n:>4}: {count:>6} inputs" + ("" if lo is None else f", [{lo:.6g}, {hi:.6g}]"))
    if "witness_from_margin" in rec:
        lines.append(f"margin {mu}: refuted by the input found at margin {rec['witness_from_margin']}")
    else:
        lines.append(f"every length > {rec['N0']}: {rec['boxes_split']} boxes split, {rec['boxes_open']} open, "
                     f"{rec['boxes_discarded']} discarded (below the margin)")
    w = rec["witness"]
    if rec["verdict"] == "certified":
        v = f"certified at margin {mu}: gap >= {rec['gap_lower']:.6g} > {rec['logit_margin']:.6g} at every length"
    elif rec["verdict"] == "fails":
        where = f"of length {w['length']} with counts {w['counts']}"
        if w["ids"] is not None:
            where = f"token ids {_compact(w['ids'])}"
        v = (f"fails at margin {mu}: the input {where} (margin {w['margin']}, answer {w['answer']!r}) has gap <= "
             f"{w['gap_upper']:.6g} < {rec['logit_margin']:.6g} (torch forward: gap {w['torch_gap']}, predicts "
             f"token {w['torch_prediction']})")
    else:
        v = (f"undetermined at margin {mu}: min gap in [{rec['gap_lower']:.6g}, {rec['gap_upper']:.6g}] around "
             f"{rec['logit_margin']:.6g}")
    lines.append(f"verdict: {v}")
    if rec["verdict"] == "fails" and w["ids"] is not None:
        lines.append("  (for a fixed-length verifier: rerun with --json > cert.json, then --model M --write-onnx "
                     "cert.json --out DIR writes an ONNX graph and a VNN-LIB property)")
    lines.append(f"time {rec['seconds']:.1f} s")
    return "\n".join(lines)


def _compact(ids: list) -> str:
    """Token ids as written, or run-length (``1 x 809, 2 x 800, 3``) when long (--json keeps every id)."""
    if len(ids) <= 24:
        return str(ids)
    runs = [(a, len(list(g))) for a, g in itertools.groupby(ids)]
    return "[" + ", ".join(f"{a} x {c}" if c > 1 else str(a) for a, c in runs) + "]"

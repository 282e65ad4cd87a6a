"""``python -m bounds.certify --model DIR --against DIR2`` for one-layer NoPE GPT-2 models (Hugging Face
``save_pretrained`` directories, or ``.pt`` / ``.pth`` / ``.bin`` state_dicts with ``--config``).

The certificate is :func:`bounds.certify.gpt2_search.certify_pair` (Izzo et al. Theorem 4.1's question for a
concrete pair: ``max_j |f_j - g_j| <= eps`` at every length).  Options of the other modes are refused in one line.
"""

from __future__ import annotations

import os

from lengthgen_cli import UsageError, bounded_int, int_list, refuse_unused, require_regular_file
from lengthgen_cli.options import strict_json
from lengthgen_cli.progress import bound_progress

STATE_DICT_SUFFIXES = (".pt", ".pth", ".bin")
MAX_TOKEN_ID = 1_000_000
OPTIONS = ("--config", "--bos", "--alphabet")
USED = ("--model", "--against", *OPTIONS, "--eps", "--time-budget", "--max-length", "--max-boxes", "--json")


def add_options(ap) -> None:
    ap.add_argument("--config", metavar="CONFIG.json",
                    help="GPT2Config JSON of a state_dict --model / --against (one-layer NoPE GPT-2)")
    ap.add_argument("--bos", type=bounded_int(0, MAX_TOKEN_ID, f"{MAX_TOKEN_ID}"), default=None,
                    help="BOS token id of a GPT-2 model (default: its tokenizer's, else its config's)")
    ap.add_argument("--alphabet", type=int_list(0, MAX_TOKEN_ID, f"{MAX_TOKEN_ID}", max_items=64), default=None,
                    help="comma-separated token ids an input of a GPT-2 model may contain (default: its tokenizer's "
                         "non-special ids, else every id but BOS)")


def is_gpt2(path) -> bool:
    """Whether ``--model`` names a GPT-2 model (a directory or a state_dict file) rather than a model file."""
    return path is not None and (os.path.isdir(path) or str(path).endswith(STATE_DICT_SUFFIXES))


def _load(path: str, args):
    from transformers.utils import logging as hf_logging

    from bounds.certify.gpt2 import FormError, load

    hf_logging.disable_progress_bar()  # the error stream carries one line on an error, no progress bars
    hf_logging.set_verbosity_error()
    if not os.path.isdir(path):
        require_regular_file(path, "GPT-2 state_dict")
    if args.config is not None:
        require_regular_file(args.config, "GPT-2 config")
    try:
        return load(path, config=args.config, bos=args.bos, alphabet=args.alphabet)
    except FormError as e:
        raise UsageError(f"{path}: {e}") from None


def run(args, given: set) -> str:
    from bounds.certify.gpt2 import import_check
    from bounds.certify.gpt2_search import certify_pair

    refuse_unused(given, [o for o in _all_options(given) if o not in USED],
                  "a GPT-2 pair is certified with --eps, --time-budget, --max-length, --max-boxes")
    if args.against is None:
        raise UsageError("a GPT-2 --model needs --against DIR (a second one-layer GPT-2)")
    if not is_gpt2(args.against):
        raise UsageError(f"--against {args.against} is not a GPT-2 directory or state_dict (.pt, .pth, .bin)")
    f, g = _load(args.model, args), _load(args.against, args)
    checks = [import_check(f, samples=8), import_check(g, samples=8)]
    bar, tick = bound_progress()
    try:
        cert = certify_pair(f, g, float(args.eps), max_length=args.max_length or 16, budget_s=args.time_budget,
                            max_boxes=args.max_boxes, tick=tick)
    except ValueError as e:
        raise UsageError(str(e)) from None
    finally:
        bar.close()
    rec = cert.record()
    rec.update(model=args.model, against=args.against, bos=f.bos, alphabet=list(f.alphabet),
               import_check=checks)
    return strict_json(rec) if args.json else report(rec)


def _all_options(given: set) -> list:
    return ["--" + g.replace("_", "-") for g in given]


def report(rec: dict) -> str:
    ck = rec["import_check"]
    lines = [f"f = {rec['model']}, g = {rec['against']} (one-layer NoPE GPT-2, BOS {rec['bos']}, alphabet "
             f"{rec['alphabet']}); import check: max |torch - enclosure| {ck[0]['max_abs_difference']:.3g} (f), "
             f"{ck[1]['max_abs_difference']:.3g} (g) on {ck[0]['samples']} inputs",
             f"lengths 1..{rec['N0']}: max_j |f_j - g_j| per length, certified [lower, upper]"]
    lines += [f"  n = {n:>4}: [{lo:.6g}, {hi:.6g}]" for n, (lo, hi) in enumerate(rec["lengths"], 1)]
    lines.append(f"every length > {rec['N0']}: {rec['boxes_split']} boxes split, {rec['boxes_open']} open")
    w = rec["witness"]
    wtxt = (f"token ids {w['ids']}" if w["ids"] is not None else
            f"of length {w['length']} with counts {w['counts']} (last token {w['last']})")
    if rec["verdict"] == "certified":
        v = f"certified: max_j |f_j - g_j| <= {rec['upper']:.6g} <= eps = {rec['eps']:.6g} at every length"
    elif rec["verdict"] == "fails":
        v = (f"fails: the input {wtxt} gives |f - g| >= {rec['lower']:.6g} > eps = {rec['eps']:.6g} (torch forward: "
             f"{rec['torch_difference']})")
    else:
        v = f"undetermined, gap [{rec['lower']:.6g}, {rec['upper']:.6g}] around eps = {rec['eps']:.6g}"
    lines += [f"verdict: {v}", f"time {rec['seconds']:.1f} s"]
    return "\n".join(lines)

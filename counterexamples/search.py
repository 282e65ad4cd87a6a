"""``python -m counterexamples.search``: find Golowich et al. Prop C.3-style necessity witnesses by z3 search.

    python -m counterexamples.search --drop locality|relative|realizability|coverage|none --L 4 \\
        [--vocab 2 --k 2 --L-local 2 --Lbar 8 --keys 2 --values 2 --c 1/4 --eta-factor 2] \\
        [--literal] [--no-minimize] [--timeout 60] [--json] [--out results.jsonl [--resume]]

``--json`` prints one object: found, verified (independent exact re-check), witness, train_risk, test_risk,
bound, seconds (and params, searched cells, check details).  With ``--drop none`` the search looks for a
failing minimiser while all four assumptions hold; none is expected, and ``bound`` is Theorem 4.3's
eta_L eta_Lbar L Lbar^2 delta (delta = 0 here) next to ``worst_test_risk``.  ``--out`` appends one JSON
line per searched cell and a final line; ``--resume`` skips the cells of an earlier run that were unsat.
Usage errors exit 2 with one line.  See docs/counterexamples.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from pathlib import Path

from counterexamples.golowich.search import DROPS, Params, SearchError, format_witness, search

PROG = "python -m counterexamples.search"


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (no usage dump)
        raise _UsageError(message)


def _fraction(s: str) -> Fraction:
    try:
        return Fraction(s)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a rational number: {s!r}") from None


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--drop", required=True, choices=DROPS, help="the assumption to drop (none: Thm 4.3 check)")
    ap.add_argument("--L", type=int, required=True, help="maximum training length (training lengths [L/2, L])")
    ap.add_argument("--vocab", type=int, default=2, help="vocabulary size (default 2)")
    ap.add_argument("--k", type=int, default=2, help="sparsity (default 2)")
    ap.add_argument("--L-local", dest="L_local", type=int, default=None,
                    help="locality radius (default 2 for a drop, max(1, L//4) for none)")
    ap.add_argument("--Lbar", type=int, default=None, help="test length (default 2L)")
    ap.add_argument("--keys", type=int, default=2, help="maximum number of key functions (default 2)")
    ap.add_argument("--values", type=int, default=2, help="maximum number of value functions (default 2)")
    ap.add_argument("--c", type=_fraction, default=Fraction(1, 4), help="failure threshold on the test risk")
    ap.add_argument("--eta-factor", dest="eta_factor", type=_fraction, default=Fraction(2),
                    help="coverage is required with eta_l = eta_factor * l (default 2)")
    ap.add_argument("--literal", action="store_true",
                    help="do not require span(S*) <= L_local (Theorem 4.3 as literally stated)")
    ap.add_argument("--no-minimize", dest="minimize", action="store_false", help="do not shrink the witness")
    ap.add_argument("--min-seconds", dest="min_seconds", type=float, default=3.0,
                    help="time budget for shrinking a witness (default 3)")
    ap.add_argument("--timeout", type=float, default=60.0, help="overall time limit in seconds (default 60)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--out", type=Path, default=None, help="append JSON lines (one per searched cell) here")
    ap.add_argument("--resume", action="store_true", help="skip cells found unsat in --out by an earlier run")
    return ap


def _resume_cells(path: Path, params: dict) -> set:
    done = set()
    if not path.exists():
        return done
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if rec.get("params") == params and rec.get("cell", {}).get("result") == "unsat":
            c = rec["cell"]
            done.add((c["keys"], c["values"], tuple(c["planted"])))
    return done


def main(argv: list[str] | None = None) -> int:
    ap = _parser()
    try:
        args = ap.parse_args(argv)
        if args.resume and args.out is None:
            raise _UsageError("--resume needs --out FILE")
        p = Params(drop=args.drop, L=args.L, vocab=args.vocab, k=args.k, L_local=args.L_local, Lbar=args.Lbar,
                   keys=args.keys, values=args.values, c=args.c, eta_factor=args.eta_factor, literal=args.literal,
                   minimize=args.minimize, timeout_s=args.timeout, min_seconds=args.min_seconds).resolved()
    except (_UsageError, SearchError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    from counterexamples.golowich.search import _params_json

    pj = _params_json(p)
    skip = _resume_cells(args.out, pj) if args.resume else set()
    out = args.out.open("a") if args.out else None

    def log(entry):
        if out:
            out.write(json.dumps({"params": pj, "cell": entry}) + "\n")
            out.flush()

    try:
        res = search(p, log=log, skip=skip)
        if out:
            out.write(json.dumps({"params": pj, "final": res}) + "\n")
    finally:
        if out:
            out.close()
    if args.json:
        print(json.dumps(res))
        return 0
    _print_human(res)
    return 0


def _print_human(res: dict) -> None:
    p = res["params"]
    print(f"drop {p['drop']}: L = {p['L']}, Lbar = {p['Lbar']}, vocab {p['vocab']}, k = {p['k']}, "
          f"L_local = {p['L_local']}, <= {p['keys']} keys x {p['values']} values  ({res['seconds']} s)")
    if res["found"]:
        print(f"FOUND a witness; exact re-check: {'verified' if res['verified'] else 'NOT VERIFIED'}")
        print(format_witness(res["witness"]))
        print(f"  training risk of the failing minimiser: {res['train_risk']}")
        print(f"  its risk at Lbar = {p['Lbar']}: {res['test_risk']}   (threshold/bound: {res['bound']})")
        for a, why in res["check"]["violations"].items():
            print(f"  {a} violated: {why}")
    else:
        done = "complete" if res.get("complete") else "INCOMPLETE (time limit)"
        print(f"no witness within the bounds ({done}; {len(res['searched'])} cells)")
        if p["drop"] == "none":
            print(f"  Theorem 4.3 bound eta_L eta_Lbar L Lbar^2 delta = {res['bound']} (delta = 0); "
                  f"worst test risk of a minimiser found: {res['worst_test_risk']}")
            print(f"  theorem side conditions: {res['theorem_side_conditions']}")


if __name__ == "__main__":
    sys.exit(main())

"""``python -m constructions.crasp list|show|check|run|trace|compile`` (see docs/crasp.md).

NAME is a benchmark name (``list`` shows them) or the path of a ``.crasp`` program file.  Exit codes:
0 success, 1 a check failed (program != oracle) or compilation failed, 2 usage error (unknown name,
symbol outside the alphabet, malformed program file, compiler missing, a bad ``--out`` path, more words than
:data:`MAX_WORDS`) -- always one readable line (the convention of :mod:`lengthgen_cli`).
"""

from __future__ import annotations

import json
import os
import sys

from constructions.crasp.ast import Program
from constructions.crasp.errors import CraspError, UnknownProgramError
from lengthgen_cli import (
    Parser,
    UsageError,
    add_json_option,
    add_output_options,
    bounded_int,
    check_output,
    command,
    progress,
    usage_errors,
)
from lengthgen_cli.output import write_text

# Exhaustive checks evaluate every word up to --max-len at once per length; beyond this many words the
# memory (words x length bytes) and time are refused up front.  The largest benchmark default is 488280.
MAX_WORDS = 2**22
MAX_LEN = 64


def _load(name: str) -> tuple[Program, object]:
    """(program, benchmark-or-None) for a benchmark name or a .crasp path."""
    from constructions.crasp import programs
    from constructions.crasp.syntax import parse_file

    if name.endswith(".crasp") or os.sep in name or os.path.isfile(name):
        if not os.path.isfile(name):
            raise UsageError(f"no such program file: {name}")
        try:
            prog = parse_file(name)
        except UnicodeDecodeError as e:
            raise UsageError(f"{name}: not a UTF-8 text file ({e.reason})") from None
        except CraspError as e:
            raise UsageError(f"{name}: {e}") from None
        return prog, programs.BENCHMARKS.get(prog.name)
    try:
        bench = programs.get(name)
    except UnknownProgramError as e:
        raise UsageError(str(e)) from None
    return bench.program(), bench


def _compiler():
    try:
        from constructions.crasp import compiler  # noqa: PLC0415 - lazy on purpose
    except ImportError as e:
        raise UsageError(f"the C-RASP compiler (constructions/crasp/compiler.py) is not available: {e}") from None
    if not hasattr(compiler, "compile_program"):
        raise UsageError("constructions/crasp/compiler.py has no compile_program(program) yet")
    return compiler


def cmd_list(args) -> int:
    from constructions.crasp.programs import BENCHMARKS, NO_PROGRAM

    rows = []
    for b in BENCHMARKS.values():
        p = b.program()
        rows.append({"name": b.name, "title": b.title, "fragment": p.fragment, "alphabet": "".join(p.alphabet),
                     "exhaustive_length": b.exhaustive_len, "claim": b.claim, "paper": b.paper_row})
    no = [{"name": n.name, "title": n.title, "program": None, "claim": n.claim, "argument": n.argument}
          for n in NO_PROGRAM.values()]
    if args.json:
        print(json.dumps({"programs": rows, "no_program": no}, indent=2))
        return 0
    w = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name'].ljust(w)}  {r['fragment']:<22} {{{','.join(r['alphabet'])}}}  {r['title']}")
    print("\nno program (non-expressibility claims):")
    for r in no:
        print(f"  {r['name'].ljust(w)}  {r['title']}  [{r['claim']}]")
    return 0


def cmd_show(args) -> int:
    from constructions.crasp.syntax import format_program

    prog, _ = _load(args.name)
    if args.json:
        print(json.dumps({"name": prog.name, "alphabet": list(prog.alphabet), "fragment": prog.fragment,
                          "period": prog.period, "locality": prog.locality,
                          "operations": len(prog.operations()), "text": format_program(prog)}, indent=2))
        return 0
    print(format_program(prog, header=True), end="")
    print(f"-- fragment {prog.fragment}, period {prog.period}, locality {prog.locality}, "
          f"{len(prog.operations())} operations")
    return 0


def cmd_check(args) -> int:
    from constructions.crasp.verify import check_exhaustive

    if args.name == "all":
        return _check_all(args)
    prog, bench = _load(args.name)
    if bench is None:
        raise UsageError(f"no oracle for {args.name!r}: check works for benchmark names (see 'list')")
    n = args.max_len if args.max_len is not None else bench.exhaustive_len
    _check_words(prog, n)
    with progress(total=n, desc=f"{bench.name}: lengths", unit="length") as bar:
        res = check_exhaustive(prog, bench.oracle, n, bench.name, step=lambda _: bar.update())
    if args.json:
        print(json.dumps({"name": res.name, "max_len": res.max_len, "strings": res.n_strings, "accepted": res.n_accepted,
                          "ok": res.ok, "counterexample": res.counterexample, "seconds": round(res.seconds, 3)}))
    else:
        print(res.line())
    return 0 if res.ok else 1


def _check_all(args) -> int:
    import time

    from constructions.crasp.programs import BENCHMARKS
    from constructions.crasp.verify import check_exhaustive

    lengths = {name: args.max_len if args.max_len is not None else b.exhaustive_len for name, b in BENCHMARKS.items()}
    for name, b in BENCHMARKS.items():
        _check_words(b.program(), lengths[name])
    t0 = time.perf_counter()
    results = []
    for name, b in progress(BENCHMARKS.items(), total=len(BENCHMARKS), desc="benchmarks", unit="program"):
        res = check_exhaustive(b.program(), b.oracle, lengths[name], name)
        results.append(res)
        if not args.json:
            print(res.line(), flush=True)
    total = time.perf_counter() - t0
    ok = all(r.ok for r in results)
    if args.json:
        print(json.dumps({"ok": ok, "seconds": round(total, 2), "results": [
            {"name": r.name, "max_len": r.max_len, "strings": r.n_strings, "ok": r.ok,
             "counterexample": r.counterexample} for r in results]}))
    else:
        print(f"{sum(r.n_strings for r in results)} words, {total:.1f} s, all agree: {ok}")
    return 0 if ok else 1


def _check_words(prog: Program, max_len: int) -> None:
    words = sum(len(prog.alphabet) ** n for n in range(1, max_len + 1))
    if words > MAX_WORDS:
        raise UsageError(f"--max-len {max_len} over the {len(prog.alphabet)} symbols of {prog.name} means {words} "
                         f"words, beyond the limit constructions.crasp.cli.MAX_WORDS = {MAX_WORDS}")


def cmd_run(args) -> int:
    from constructions.crasp.interpreter import accepts

    prog, _ = _load(args.name)
    strings = list(args.strings)
    for s in strings:
        if s == "":
            raise UsageError("the empty word is outside Definition 8 (a C-RASP program has no value on it)")
        bad = [c for c in s if c not in prog.alphabet]
        if bad:
            raise UsageError(f"symbol {bad[0]!r} in {s!r} is not in the alphabet {' '.join(prog.alphabet)!r} of {prog.name}")
    if args.compiled:
        comp = _compiler()
        try:
            model = comp.compile_program(prog)
        except CraspError as e:
            print(f"compile failed: {e}", file=sys.stderr)
            return 1
        if not hasattr(comp, "compiled_accepts"):
            raise UsageError("constructions/crasp/compiler.py has no compiled_accepts(model, strings)")
        result = [bool(x) for x in comp.compiled_accepts(model, strings)]
    else:
        result = [bool(x) for x in accepts(prog, strings)]
    if args.json:
        print(json.dumps([{"input": s, "accept": a} for s, a in zip(strings, result, strict=True)]))
    else:
        for s, a in zip(strings, result, strict=True):
            print(f"{'accept' if a else 'reject'}  {s}")
    return 0


def cmd_trace(args) -> int:
    from constructions.crasp.interpreter import trace

    prog, _ = _load(args.name)
    s = args.string
    if s == "":
        raise UsageError("the empty word is outside Definition 8 (a C-RASP program has no value on it)")
    bad = [c for c in s if c not in prog.alphabet]
    if bad:
        raise UsageError(f"symbol {bad[0]!r} in {s!r} is not in the alphabet {' '.join(prog.alphabet)!r} of {prog.name}")
    check_output(args.out, kind="artefact", recognise=_is_trace_html)
    t = trace(prog, s, all_ops=args.all)
    if args.out:
        write_text(args.out, f"<!doctype html><meta charset='utf-8'><title>{prog.name} on {s}</title>\n{t.html()}\n",
                   what="--out")
    if args.json:
        print(json.dumps({"name": prog.name, "string": s, "accepted": t.accepted, "out": args.out,
                          "rows": [{"label": label, "sort": sort, "values": [v if isinstance(v, bool | int) else str(v)
                                                                             for v in vals]}
                                   for label, sort, vals in t.rows]}))
    elif args.out:
        print(f"wrote {args.out}")
    else:
        print(t.text())
    return 0


def _is_trace_html(text: str) -> bool:
    return text.startswith("<!doctype html>") and "crasp-trace" in text


def _is_model_json(text: str) -> bool:
    from constructions.limit_transformer.serialize import FORMAT

    try:
        return json.loads(text).get("format") == FORMAT
    except (json.JSONDecodeError, AttributeError, RecursionError):
        return False


def cmd_compile(args) -> int:
    prog, _ = _load(args.name)
    check_output(args.out, kind="artefact", recognise=_is_model_json)
    comp = _compiler()
    try:
        model = comp.compile_program(prog)
    except CraspError as e:
        print(f"compile failed: {e}", file=sys.stderr)
        return 1
    from constructions.limit_transformer.serialize import save_model

    try:
        save_model(model, args.out)
    except OSError as e:
        raise UsageError(f"cannot write {args.out}: {e.strerror}") from None
    info = comp.describe(model) if hasattr(comp, "describe") else {}
    if args.json:
        print(json.dumps({"name": prog.name, "out": args.out, **{k: v for k, v in info.items() if _jsonable(v)}}))
    else:
        print(f"compiled {prog.name} -> {args.out}" + "".join(f"; {k} {v}" for k, v in info.items()))
    return 0


def _jsonable(v) -> bool:
    try:
        json.dumps(v)
        return True
    except TypeError:
        return False


def build_parser() -> Parser:
    p = Parser(module="constructions.crasp", description="C-RASP programs: list, show, check, run, trace, compile.")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="{list,show,check,run,trace,compile}",
                           help="what to do (each has its own --help)")
    name_help = "a benchmark name ('list' shows them) or the path of a .crasp program file"
    s = sub.add_parser("list", help="list the benchmark programs and the tasks without a program")
    add_json_option(s)
    s.set_defaults(fn=cmd_list)
    s = sub.add_parser("show", help="print a program in the text syntax")
    s.add_argument("name", help=name_help)
    add_json_option(s)
    s.set_defaults(fn=cmd_show)
    s = sub.add_parser("check", help="compare a program (or 'all') with its oracle on all words up to a length")
    s.add_argument("name", help=f"{name_help}, or 'all' for every benchmark")
    s.add_argument("--max-len", type=bounded_int(1, MAX_LEN, f"constructions.crasp.cli.MAX_LEN = {MAX_LEN}"),
                   default=None, help="longest word checked (default: the benchmark's exhaustive length)")
    add_json_option(s)
    s.set_defaults(fn=cmd_check)
    s = sub.add_parser("run", help="run a program (or its compiled Limit Transformer) on strings")
    s.add_argument("name", help=name_help)
    s.add_argument("strings", nargs="+", metavar="STRING", help="the words to run, over the program's alphabet")
    s.add_argument("--compiled", action="store_true", help="evaluate the compiled Limit Transformer instead")
    add_json_option(s, "a JSON list")
    s.set_defaults(fn=cmd_run)
    s = sub.add_parser("trace", help="per-position values of every definition on one string")
    s.add_argument("name", help=name_help)
    s.add_argument("string", help="the word to trace, over the program's alphabet")
    s.add_argument("--all", action="store_true", help="also anonymous sub-operations")
    add_output_options(s, kind="artefact", what="the trace as an HTML table", metavar="FILE.html")
    add_json_option(s)
    s.set_defaults(fn=cmd_trace)
    s = sub.add_parser("compile", help="compile to a Limit Transformer JSON file")
    s.add_argument("name", help=name_help)
    add_output_options(s, kind="artefact", what="the model (JSON, docs/limit_transformer.md)", required=True,
                       metavar="FILE.json")
    add_json_option(s)
    s.set_defaults(fn=cmd_compile)
    return p


@command
def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    with usage_errors(p, CraspError):
        return args.fn(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

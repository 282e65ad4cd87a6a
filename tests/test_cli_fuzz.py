"""Fuzz of every command-line tool: Hypothesis-generated command lines, each with at least one bad ingredient.

The tools are discovered from pyproject's ``[project.scripts]`` (so a tool added there is fuzzed without editing
this file) and their options from their own parsers (caught as ``main(['--help'])`` parses).  Every generated
command line holds the tool's required options (valid values), random other options, and at least one
ingredient that no tool may accept: an unknown option, two options of one mutually exclusive group, a number
that is not one (``nan``, ``1/0``, ``1e99999``, ``x``), or a path option or file argument given a directory, a
FIFO, ``/dev/null``, a missing file, a malformed JSON file or another tool's results file (and a model input a
model archive, ``.npz``, holding a pickled object).  The property is the
package's convention (README, "Command-line tools"): exit status 2, exactly one line ``PROG: error: ...`` on
stderr, no traceback, and within seconds (a FIFO read without a check blocks forever: the alarm turns that into
a failure).  Tools run in-process through ``main(argv)`` as in ``tests/test_cli.py``.

A second property feeds each option and file argument, one at a time, a hostile value beside the tool's
required options: files that are binary, empty, deeply nested, cut short, standard JSON of the wrong shape or
with ``NaN``, a text file, a directory; numbers that are NaN, infinite, absurdly large or negative.  The
property there is weaker (such a value may be valid for some option): exit status 0, 2 or 130, no traceback,
at most one line on stderr when refused, and no file written outside the scratch folders (the checkout's
folders are compared before and after).  Tools that would run whole suites or trainings when a line is
accepted are given their listing mode (``verify.mutate --list``) or have that option left out
(``verify.report --run``).

The default suite runs a bounded number of examples; ``-m slow`` runs many more, and a fixed table of every
option with every hostile value.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import signal
import tempfile
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lengthgen_cli import Parser

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
TOOLS = sorted({target.split(":")[0]: target for target in SCRIPTS.values()}.items())  # (module, "module:func")
SECONDS = 30  # per command line; a refused one takes well under a second
_PATHY = re.compile(r"file|path|dir|json|results|runs|model|measured|against|^out$|^f$|^g$|program", re.I)
_NUMBERS = ("nan", "1/0", "1e99999", "x", "-inf")


def _files() -> dict[str, str]:
    """Special and malformed paths, made once."""
    d = Path(tempfile.mkdtemp(prefix="lengthgen-fuzz-"))
    (d / "adir").mkdir()
    os.mkfifo(d / "fifo")
    (d / "bad.json").write_text('{"format": ')
    (d / "list.json").write_text("[1, 2, 3]\n")
    (d / "records.jsonl").write_text(json.dumps({"run": 1, "ok": True}) + "\n")
    (d / "results.json").write_text(json.dumps({"version": 1, "tests": {}, "mutations": {}}))
    with open(d / "pickled.npz", "wb") as f:  # the binary model format's container, with a pickled array
        np.savez(f, header=np.array("{}"), embedding=np.array([{"x": 1}], dtype=object))
    return {"dir": str(d / "adir"), "fifo": str(d / "fifo"), "devnull": os.devnull, "missing": str(d / "nope.json"),
            "malformed": str(d / "bad.json"), "list": str(d / "list.json"), "jsonl": str(d / "records.jsonl"),
            "results": str(d / "results.json"), "pickled_npz": str(d / "pickled.npz")}


FILES = _files()


def _hostile_files() -> dict[str, str]:
    d = Path(tempfile.mkdtemp(prefix="lengthgen-hostile-"))
    texts = {"empty.json": "", "deep.json": "[" * 100_000 + "]" * 100_000,
             "deepobj.json": '{"a":' * 100_000 + "1" + "}" * 100_000, "int.json": "5", "string.json": '"x"',
             "null.json": "null", "nan.json": '{"a": NaN, "format": NaN}', "cut.json": '{"key": [1, 2',
             "fields.json": json.dumps({"format": 7, "tasks": 5, "record": 3, "key": 1, "version": "x",
                                        "experiment": "izzo2025", "eps": "x", "layers": 1}),
             "note.txt": "a note\n"}
    out = {}
    for name, text in texts.items():
        (d / name).write_text(text)
        out[name] = str(d / name)
    (d / "binary.json").write_bytes(bytes(range(256)) * 8)
    out["binary.json"] = str(d / "binary.json")
    out["dir"] = str(d)
    return out


HOSTILE_FILES = _hostile_files()
HOSTILE_NUMBERS = ("nan", "inf", "-inf", "1e308", "-1e308", "99999999999999999999999", "-99999999999", "1/0",
                   "1e-400", "0x10")
# what keeps an accepted line short: the listing mode, or options left out (they run suites)
SAFE_EXTRA = {"verify.mutate": ["--list"]}
LEFT_OUT = {"verify.report": {"--run", "--slow"}}
# tools whose accepted lines train: an empty file is a valid new output there (it would start a training)
TRAINING_TOOLS = {"bounds.experiments.reproduce", "bounds.experiments.measure"}
# inputs that are never readable as anything; a missing path or another tool's results may be a valid output
BAD_PATHS = ("dir", "fifo", "devnull")
# model inputs (a JSON file or the binary .npz format) are also given an archive that holds a pickled object
_MODEL_INPUT = re.compile(r"model|against|^f$|^g$", re.I)
BAD_MODEL_PATHS = (*BAD_PATHS, "pickled_npz")


def _main(target: str):
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)


_PARSERS: dict[str, argparse.ArgumentParser] = {}


def _parser(target: str) -> argparse.ArgumentParser:
    if target not in _PARSERS:
        seen, original = [], Parser.parse_args

        def record(self, *args, **kwargs):
            seen.append(self)
            raise SystemExit(0)

        Parser.parse_args = record
        try:
            _main(target)(["--help"])
        except SystemExit:
            pass  # a main() not wrapped by lengthgen_cli.command
        finally:
            Parser.parse_args = original
        assert seen, f"{target} does not parse with lengthgen_cli.Parser"
        _PARSERS[target] = seen[0]
    return _PARSERS[target]


def _subparsers(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def _pathy(a: argparse.Action) -> bool:
    return bool(_PATHY.search(f"{a.metavar or ''} {a.dest}")) and a.type is None and not a.choices


def _wants_folder(a: argparse.Action) -> bool:
    """An option that names a folder (``--results-dir``, ``--runs``, or help saying "folder"/"directory", as
    ``bounds.experiments.measure --out``, a run folder): a directory is a valid value there, never a bad one."""
    return bool(re.search(r"dir|runs", f"{a.metavar or ''} {a.dest}", re.I)
                or re.search(r"\bfolder\b|\bdirectory\b", a.help or "", re.I))


def _valid_value(a: argparse.Action) -> str:
    if a.choices:
        return str(next(iter(a.choices)))
    if _pathy(a):
        return FILES["missing"]
    name = getattr(a.type, "__name__", "")
    return "2" if name in ("rational", "finite_real", "parse", "int", "bounded_int", "int_list") or a.type else "a"


def _tokens(a: argparse.Action, value: str) -> list[str]:
    if not a.option_strings:
        return [value] * (1 if a.nargs in (None, "?") else 2 if isinstance(a.nargs, int) and a.nargs == 2 else 1)
    opt = a.option_strings[-1]
    if a.nargs == 0:
        return [opt]
    return [opt, value]


@st.composite
def command_lines(draw):
    module, target = draw(st.sampled_from(TOOLS))
    parser = _parser(target)
    argv: list[str] = []
    subs = _subparsers(parser)
    if subs:
        name = draw(st.sampled_from(sorted(subs)))
        argv.append(name)
        parser = subs[name]
    actions = [a for a in parser._actions if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction)]
    positional = [a for a in actions if not a.option_strings]
    optional = [a for a in actions if a.option_strings]
    bad = {"unknown": ["--no-such-option-xyz"]}
    groups = [[a for a in g._group_actions if a.option_strings] for g in parser._mutually_exclusive_groups]
    groups = [g for g in groups if len(g) >= 2]
    if groups:
        g = draw(st.sampled_from(groups))
        bad["conflict"] = [t for a in g[:2] for t in _tokens(a, _valid_value(a))]
    numeric = [a for a in optional if a.type is not None and a.nargs != 0 and not a.choices]
    if numeric:
        a = draw(st.sampled_from(numeric))
        bad["number"] = _tokens(a, draw(st.sampled_from(_NUMBERS)))
    paths = [a for a in actions if _pathy(a) and a.nargs != 0]
    if paths:
        a = draw(st.sampled_from(paths))
        folder = _wants_folder(a)  # a directory is what it wants
        kinds = BAD_MODEL_PATHS if _MODEL_INPUT.search(f"{a.metavar or ''} {a.dest}") else BAD_PATHS
        bad["path"] = ("path", a, FILES[draw(st.sampled_from(kinds[1:] if folder else kinds))])
    kind = draw(st.sampled_from(sorted(bad)))
    chosen_bad = bad[kind]
    # positionals: valid values, or the bad path where it is one
    for a in positional:
        if kind == "path" and chosen_bad[1] is a:
            argv += _tokens(a, chosen_bad[2])
        elif a.choices:
            argv.append(str(draw(st.sampled_from(sorted(map(str, a.choices))))))
        else:
            argv += _tokens(a, _valid_value(a) if not _pathy(a) else FILES[draw(st.sampled_from(("malformed", "list",
                                                                                                   "jsonl")))])
    for a in optional:
        if a.required:
            argv += _tokens(a, _valid_value(a))
    exclusive = {a for g in parser._mutually_exclusive_groups for a in g._group_actions}
    extra = [a for a in optional if not a.required and a not in exclusive]
    for a in draw(st.lists(st.sampled_from(extra), max_size=3, unique_by=id)) if extra else []:
        argv += _tokens(a, _valid_value(a))
    if kind == "path" and chosen_bad[1].option_strings:
        argv += _tokens(chosen_bad[1], chosen_bad[2])
    elif kind != "path":
        argv += chosen_bad
    return module, target, argv


def _hostile_cases(module: str, target: str) -> list[tuple[str, list[str]]]:
    """(label, argv) for every option and file argument of the tool (of each sub-command, and of each paper of
    ``bounds.experiments.reproduce``) with every hostile value: files for options that take a path or text,
    numbers for typed options."""
    parser = _parser(target)
    if module == "bounds.experiments.reproduce":
        from bounds.experiments.reproduce import papers

        parsers = [(paper, _parser(f"bounds.experiments.{paper}:main")) for paper in papers()]
    else:
        parsers = sorted(_subparsers(parser).items()) or [(None, parser)]
    cases = []
    for sub, p in parsers:
        actions = [a for a in p._actions if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction)
                   and not set(a.option_strings) & LEFT_OUT.get(module, set())]
        positional = [a for a in actions if not a.option_strings]
        required = [a for a in actions if a.option_strings and a.required]
        for a in actions:
            if a.nargs == 0 or a.choices or a.nargs == argparse.REMAINDER:
                continue
            values = [v for k, v in HOSTILE_FILES.items()  # a folder is what a folder option wants: it would run
                      if not (k == "dir" and _wants_folder(a)) and not (k == "empty.json" and module in TRAINING_TOOLS)] \
                if a.type is None else HOSTILE_NUMBERS
            for v in values:
                argv = [sub] if sub else []
                for b in positional:
                    if b is a:
                        argv += [v]
                    elif b.choices:
                        argv.append(str(next(iter(b.choices))))
                    elif b.nargs != argparse.REMAINDER:
                        argv += _tokens(b, HOSTILE_FILES["note.txt"] if _pathy(b) else _valid_value(b))
                for b in required:
                    if b is not a:
                        argv += _tokens(b, _valid_value(b))
                if a.option_strings:
                    argv += [a.option_strings[-1], v]
                label = f"{module} {sub or ''} {a.option_strings[-1] if a.option_strings else a.dest}={v}"
                cases.append((label, [*argv, *SAFE_EXTRA.get(module, [])]))
    return cases


HOSTILE_CASES = [(m, t, label, argv) for m, t in TOOLS for label, argv in _hostile_cases(m, t)]


def _checkout_listing() -> dict[str, set[str]]:
    """The entries of the checkout's top folder and of the folders tools write by default (a tool given a
    hostile value must write nothing there)."""
    out = {}
    for rel in (".", "docs", "docs/results", "runs"):
        p = ROOT / rel
        out[rel] = set(os.listdir(p)) if p.is_dir() else set()
    return out


def _check_hostile(module: str, target: str, argv: list[str], capsys) -> None:
    before = _checkout_listing()
    try:
        rc, out, err = _run(target, argv, capsys)
    except Exception as e:  # an uncaught exception is a traceback for the user (the alarm included: a hang)
        raise AssertionError(f"{module} {argv}: {type(e).__name__}: {str(e)[:200]}") from None
    assert "Traceback" not in err, (module, argv, err)
    assert rc in (0, 2, 130), (module, argv, rc, err)
    if rc != 0:
        lines = [x for x in err.splitlines() if x.strip()]
        assert len(lines) == 1, (module, argv, err)
    assert _checkout_listing() == before, (module, argv, "wrote into the checkout")


class _Alarm(Exception):
    pass


def _run(target: str, argv: list[str], capsys) -> tuple[int, str, str]:
    def ring(signum, frame):
        raise _Alarm(f"still running after {SECONDS} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(SECONDS)
    try:
        rc = _main(target)(list(argv))
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else int(e.code is not None)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    out, err = capsys.readouterr()
    return rc, out, err


def _check(module: str, target: str, argv: list[str], capsys) -> None:
    rc, out, err = _run(target, argv, capsys)
    assert "Traceback" not in err, (module, argv, err)
    assert rc == 2, (module, argv, rc, err)
    assert err.count("\n") == 1 and err.endswith("\n"), (module, argv, err)
    assert re.match(r"[\w.-]+( \w+)?: error: \S", err), (module, argv, err)


@pytest.fixture(scope="module", autouse=True)
def _scratch_cwd(tmp_path_factory):
    """Tools run in a scratch working directory: a command line wrongly accepted writes its default outputs
    (``runs/...``) there, not into the checkout."""
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("fuzz-cwd"))
    yield
    os.chdir(here)


_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@settings(max_examples=25, **_SETTINGS)
@given(case=command_lines())
def test_every_tool_refuses_a_bad_command_line_in_one_line(case, capsys):
    _check(*case, capsys)


@pytest.mark.slow
@settings(max_examples=400, **_SETTINGS)
@given(case=command_lines())
def test_every_tool_refuses_a_bad_command_line_in_one_line_long(case, capsys):
    _check(*case, capsys)


@settings(max_examples=25, **_SETTINGS)
@given(case=st.sampled_from(HOSTILE_CASES))
def test_every_option_survives_a_hostile_value(case, capsys):
    module, target, _, argv = case
    _check_hostile(module, target, argv, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("case", HOSTILE_CASES, ids=[c[2] for c in HOSTILE_CASES])
def test_every_option_survives_every_hostile_value(case, capsys):
    module, target, _, argv = case
    _check_hostile(module, target, argv, capsys)


def test_every_console_script_is_fuzzed():
    """Discovery: each console script of pyproject is a tool here, with a parser the generator can read."""
    assert len(TOOLS) == len({t.split(":")[0] for t in SCRIPTS.values()}) >= 10
    for _, target in TOOLS:
        assert isinstance(_parser(target), argparse.ArgumentParser)
    assert {m for m, *_ in HOSTILE_CASES} == {m for m, _ in TOOLS}  # every tool has hostile cases

def test_the_property_can_fail(capsys):
    """Negative control: a command line that is accepted (exit 0) and a tool that prints a usage dump both fail
    the check."""
    with pytest.raises(AssertionError):
        _check("verify.mutate", "verify.mutate:main", ["--list"], capsys)
    plain = argparse.ArgumentParser(prog="plain")
    plain.add_argument("--n", type=int)

    def main(argv):
        plain.parse_args(argv)
        return 0

    import types

    fake = types.ModuleType("lengthgen_fuzz_plain")
    fake.main = main
    import sys

    sys.modules["lengthgen_fuzz_plain"] = fake
    try:
        with pytest.raises(AssertionError):
            _check("plain", "lengthgen_fuzz_plain:main", ["--n", "x"], capsys)
        with pytest.raises(AssertionError):  # the hostile property: a usage dump is more than one line
            _check_hostile("plain", "lengthgen_fuzz_plain:main", ["--n", "x"], capsys)

        def crash(argv):
            json.loads("[" * 100_000 + "]" * 100_000)

        fake.main = crash
        with pytest.raises(AssertionError):  # ... and a traceback (an uncaught exception) fails it too
            _check_hostile("plain", "lengthgen_fuzz_plain:main", [], capsys)
        stray = ROOT / "docs" / "results" / ".lengthgen-fuzz-stray"

        def writes(argv):
            stray.write_text("x")
            return 0

        fake.main = writes
        try:
            with pytest.raises(AssertionError, match="wrote into the checkout"):  # ... and so does a stray file
                _check_hostile("plain", "lengthgen_fuzz_plain:main", [], capsys)
        finally:
            stray.unlink(missing_ok=True)
    finally:
        del sys.modules["lengthgen_fuzz_plain"]

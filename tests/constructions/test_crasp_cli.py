"""The command-line tool: outputs, JSON, and one-line usage errors with exit status 2."""

import json

import pytest

from constructions.crasp.cli import main
from constructions.crasp.interpreter import accepts
from constructions.crasp.programs import BENCHMARKS


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_list_and_show(capsys):
    rc, out, _ = run(capsys, "list")
    assert rc == 0 and "tomita7" in out and "ab_d_bc" in out and "tomita3" in out
    rc, out, _ = run(capsys, "list", "--json")
    data = json.loads(out)
    assert {r["name"] for r in data["programs"]} == set(BENCHMARKS)
    rc, out, _ = run(capsys, "show", "tomita4")
    assert rc == 0 and "alphabet: 0 1" in out and "i - j in {1}" in out
    rc, out, _ = run(capsys, "show", "aa_star", "--json")
    assert json.loads(out)["period"] == 2


def test_run_json(capsys):
    rc, out, _ = run(capsys, "run", "tomita2", "1010", "10", "100", "--json")
    assert rc == 0
    assert json.loads(out) == [{"input": "1010", "accept": True}, {"input": "10", "accept": True},
                               {"input": "100", "accept": False}]
    rc, out, _ = run(capsys, "run", "copy_unique", "#ab#ab")
    assert rc == 0 and out.strip() == "accept  #ab#ab"


def test_check(capsys):
    rc, out, _ = run(capsys, "check", "d2", "--max-len", "8")
    assert rc == 0 and "agree" in out
    rc, out, _ = run(capsys, "check", "majority", "--max-len", "6", "--json")
    assert json.loads(out)["ok"] is True


def test_check_all(capsys):
    rc, out, _ = run(capsys, "check", "all", "--max-len", "4", "--json")
    data = json.loads(out)
    assert rc == 0 and data["ok"] and {r["name"] for r in data["results"]} == set(BENCHMARKS)


def test_check_detects_a_wrong_program_file(capsys, tmp_path):
    f = tmp_path / "majority.crasp"
    f.write_text("alphabet: a b\nM := #[j <= i] Q_b < #[j <= i] Q_a\n")
    rc, out, _ = run(capsys, "check", str(f), "--max-len", "6")
    assert rc == 1 and "MISMATCH on 'ab'" in out


@pytest.mark.parametrize("argv, msg", [
    (["run", "nosuch", "ab"], "unknown program 'nosuch'"),
    (["run", "tomita2", "102"], "symbol '2'"),
    (["run", "tomita2", ""], "empty word"),
    (["show", "tomita3"], "tomita3 has no program"),
    (["frobnicate"], "invalid choice"),
    (["run", "tomita2"], "arguments are required"),
    (["check", "d2", "--max-len", "0"], "--max-len"),
    (["show", "/nonexistent/x.crasp"], "no such program file"),
    (["trace", "dyck1", "ax"], "symbol 'x'"),
])
def test_usage_errors_exit_2_one_line(capsys, argv, msg):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and msg in err and "Traceback" not in err


def test_malformed_program_file(capsys, tmp_path):
    f = tmp_path / "bad.crasp"
    f.write_text("alphabet: a b\nC := #[j <= i] Q_a\nL := C & Q_a\n")
    rc, _, err = run(capsys, "show", str(f))
    assert rc == 2 and err.count("\n") == 1 and "line 3, column 6" in err
    g = tmp_path / "bin.crasp"
    g.write_bytes(b"\xff\xfe\x00")
    rc, _, err = run(capsys, "run", str(g), "a")
    assert rc == 2 and err.count("\n") == 1


def test_compiler_missing_exits_2(capsys, monkeypatch):
    import builtins
    real = builtins.__import__

    def fake(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "constructions.crasp" and fromlist and "compiler" in fromlist:
            raise ImportError("simulated: no compiler")
        return real(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", fake)
    rc, _, err = run(capsys, "run", "tomita2", "10", "--compiled")
    assert rc == 2 and "compiler" in err and err.count("\n") == 1


def test_trace_html(capsys, tmp_path):
    out = tmp_path / "t.html"
    rc, text, _ = run(capsys, "trace", "dyck1", "aabb", "--out", str(out))
    assert rc == 0 and "<table" in out.read_text()
    rc, text, _ = run(capsys, "trace", "dyck1", "aabb", "--out", str(out))  # an earlier trace is replaced
    assert rc == 0
    rc, text, _ = run(capsys, "trace", "dyck1", "aabb")
    assert "accepted: True" in text
    rc, text, _ = run(capsys, "trace", "dyck1", "aabb", "--json")
    data = json.loads(text)
    assert data["accepted"] is True and data["rows"][-1]["values"] == [False, False, False, True]


def test_out_paths_checked_before_work(capsys, tmp_path):
    """--out to a directory, a missing directory, or an existing file of another format: one line, exit 2,
    nothing written."""
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    for argv in (["compile", "tomita4", "--out", str(tmp_path)], ["compile", "tomita4", "--out", str(tmp_path / "no" / "m.json")],
                 ["compile", "tomita4", "--out", str(other)], ["trace", "dyck1", "ab", "--out", str(other)]):
        rc, out, err = run(capsys, *argv)
        assert rc == 2 and out == "" and err.count("\n") == 1 and "--out" in err, (argv, err)
    assert other.read_text() == "my notes\n"
    rc, _, err = run(capsys, "check", "a_b_c_d_e", "--max-len", "12")
    assert rc == 2 and "MAX_WORDS" in err


def test_compiled_matches_interpreter(capsys, tmp_path):
    pytest.importorskip("constructions.crasp.compiler")
    words = ["0", "1", "10", "1010", "1001", "101010", "0101"]
    rc, out, _ = run(capsys, "run", "tomita2", *words, "--compiled", "--json")
    assert rc == 0
    prog = BENCHMARKS["tomita2"].program()
    assert [r["accept"] for r in json.loads(out)] == accepts(prog, words).tolist()
    rc, out, _ = run(capsys, "compile", "tomita4", "--out", str(tmp_path / "t4.json"), "--json")
    assert rc == 0 and (tmp_path / "t4.json").exists() and json.loads(out)["name"] == "tomita4"

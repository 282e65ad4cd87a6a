"""``--write-witness RECORDS.jsonl --seed-key RUN_KEY:SEED:CERTIFICATE --out FILE``: one command that writes the
failing input of one seed's certificate in a ``--runs`` records file (the committed horizon sweep's records), and
its refusals (one line, exit 2, nothing written)."""

import json
import os
import shutil
import stat
from collections import Counter

import pytest

from bounds.certify.cli import main
from bounds.certify.runs import horizon_text, write_command

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECORDS = os.path.join(ROOT, "docs", "results", "izzo2025-certify-horizon.jsonl")
KEY = "izzo2025/modp(index=0,period=2)/N=32/seeds=4/cfg=d52efc1194:2:construction"  # X = 319155, counts only
HUGE = "izzo2025/simple(omega=1)/N=6/seeds=4/cfg=d52efc1194:3:construction"  # X about 2.9 * 10^41


def _witness(key: str) -> dict:
    run, seed, which = key.rsplit(":", 2)
    for line in open(RECORDS, encoding="utf-8"):
        r = json.loads(line)
        if r["run_key"] == run and r["seed"] == int(seed):
            return r[which]["horizon"]["witness"]
    raise AssertionError(key)


def _cli(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def matches(text: str, w: dict) -> bool:
    """The string has the witness's length and class counts: symbol counts per residue (position i of the string
    is model position i + 1, residue (i + 1) mod Delta; the window is the last tau + 1 positions)."""
    delta, alphabet = int(w["period"]), w["alphabet"]
    if len(text) != w["length"] - 1:
        return False
    want = Counter({int(c): k for c, k in w["counts"].items() if int(c)})
    for c in w["window"]:
        if c:
            want[int(c)] += 1
    got = Counter((alphabet.index(ch) + 1) * delta + (i + 1) % delta for i, ch in enumerate(text))
    return got == want


def test_one_command_writes_the_failing_input(tmp_path, capsys):
    out = tmp_path / "w.txt"
    code, stdout, err = _cli(["--write-witness", RECORDS, "--seed-key", KEY, "--out", str(out)], capsys)
    assert code == 0, err
    assert "319154 symbols" in stdout
    text = out.read_text().rstrip("\n")
    w = _witness(KEY)
    assert matches(text, w)
    # negative control: the same check rejects the string with one symbol changed
    flipped = ("1" if text[0] == "0" else "0") + text[1:]
    assert not matches(flipped, w)
    # the file this command wrote may be written again (same kind); the command is the table's hint
    assert _cli(["--write-witness", RECORDS, "--seed-key", KEY, "--out", str(out)], capsys)[0] == 0
    assert write_command(RECORDS, KEY).endswith(f"--seed-key '{KEY}' --out FILE")


@pytest.mark.parametrize("argv, msg", [
    (["--seed-key", "k-1-target"], "not RUN_KEY:SEED:CERTIFICATE"),
    (["--seed-key", KEY.replace(":construction", ":both")], "not RUN_KEY:SEED:CERTIFICATE"),
    (["--seed-key", KEY.replace(":2:", ":x:")], "not RUN_KEY:SEED:CERTIFICATE"),
    (["--seed-key", KEY.replace("N=32", "N=33")], "holds no record of run"),
    (["--seed-key", HUGE], "above the limit WITNESS_WRITE_LIMIT"),
])
def test_bad_keys_are_refused_in_one_line(argv, msg, tmp_path, capsys):
    out = tmp_path / "w.txt"
    code, _, err = _cli(["--write-witness", RECORDS, *argv, "--out", str(out)], capsys)
    assert code == 2 and msg in err and err.count("\n") == 1
    assert not out.exists()


def test_seed_key_belongs_to_write_witness(tmp_path, capsys):
    code, _, err = _cli(["--seed-key", KEY, "--runs", str(tmp_path)], capsys)
    assert code == 2 and "--seed-key" in err
    code, _, err = _cli(["--export-model", RECORDS, "--seed-key", KEY, "--out", str(tmp_path / "m.json")], capsys)
    assert code == 2 and "--seed-key" in err


def test_never_writes_over_a_device_or_another_kind_of_file(tmp_path, capsys):
    dev = tmp_path / "dev"
    os.mknod(dev, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    code, _, err = _cli(["--write-witness", RECORDS, "--seed-key", KEY, "--out", str(dev)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert stat.S_ISCHR(os.stat(dev).st_mode)
    other = tmp_path / "notes.json"
    other.write_text('{"mine": 1}\n')
    code, _, err = _cli(["--write-witness", RECORDS, "--seed-key", KEY, "--out", str(other)], capsys)
    assert code == 2 and other.read_text() == '{"mine": 1}\n'


def test_records_that_are_not_jsonl_or_a_device_are_refused(tmp_path, capsys):
    bad = tmp_path / "r.jsonl"
    bad.write_text("not json\n")
    code, _, err = _cli(["--write-witness", str(bad), "--seed-key", KEY, "--out", str(tmp_path / "w")], capsys)
    assert code == 2 and "not a --runs records file" in err
    dev = tmp_path / "rdev"
    os.mknod(dev, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    code, _, err = _cli(["--write-witness", str(dev), "--seed-key", KEY, "--out", str(tmp_path / "w")], capsys)
    assert code == 2 and err.count("\n") == 1 and not (tmp_path / "w").exists()


def test_the_runs_table_prints_the_one_command(tmp_path, capsys):
    """--summarize-only on the committed records: the hint for a failure too long to print is the command above
    (with the records file and the seed's key), not a multi-step recipe."""
    rec = tmp_path / "r.jsonl"
    shutil.copy(RECORDS, rec)
    code, out, err = _cli(["--runs", str(tmp_path), "--out", str(rec), "--summarize-only"], capsys)
    assert code == 0, err
    assert f"--write-witness {rec} --seed-key 'izzo2025/" in out
    assert "then --write-witness" not in out
    assert horizon_text  # the table's home


def test_the_table_offers_the_command_only_for_inputs_it_writes():
    """The hint for a long failing input (the --runs table's and pair mode's, one function) gives the write-out command up to WITNESS_WRITE_LIMIT symbols
    and, above it (where that command refuses), says that the class counts are all there is; control: one symbol
    under the limit the command is offered."""
    from bounds.certify.horizon import WITNESS_WRITE_LIMIT, write_out

    assert write_out(WITNESS_WRITE_LIMIT + 1, write_command(RECORDS, KEY)).endswith(write_command(RECORDS, KEY))
    above = write_out(WITNESS_WRITE_LIMIT + 2, write_command(RECORDS, KEY))
    assert "too long to write out" in above and "--write-witness" not in above

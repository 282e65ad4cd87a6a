"""``lengthgen_cli.process``: glibc's thresholds raised where glibc is the C library, nothing done (and False)
where ``mallopt`` is missing; one OpenBLAS thread when set before numpy is imported, and False (too late) after;
the estimate's output does not depend on either."""

import ctypes
import json
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from lengthgen_cli import process


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_thresholds_are_set_on_glibc():
    assert _run("from lengthgen_cli.process import keep_freed_memory; print(keep_freed_memory())").strip() == "True"


def test_nothing_is_done_without_mallopt(monkeypatch):
    """Negative control: a C library without ``mallopt`` is reported, not an error."""

    class NoMallopt:
        def __init__(self, name):
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert process.keep_freed_memory() is False


def test_one_blas_thread_before_numpy_and_too_late_after():
    code = ("import os; os.environ.pop('OPENBLAS_NUM_THREADS', None); {first}"
            "from lengthgen_cli.process import one_blas_thread_from_start as f; ok = f(); import numpy; "
            "from threadpoolctl import threadpool_info; "
            "print(ok, [i['num_threads'] for i in threadpool_info() if i['internal_api'] == 'openblas'])")
    assert _run(code.format(first="")).split(" ", 1) == ["True", "[1]\n"]
    assert _run(code.format(first="import numpy; ")).startswith("False")  # negative control: numpy came first


def test_estimate_output_does_not_depend_on_them(tmp_path):
    """``python -m bounds.estimate`` sets both; ``main([...])`` called in-process sets neither."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    try:
        from bench_bounds import model_dict
    finally:
        sys.path.pop(0)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model_dict(16, 6, 4, 16)))
    argv = ["--model", str(path), "--mode", "interval", "--json"]
    with_them = subprocess.run([sys.executable, "-m", "bounds.estimate", *argv], capture_output=True, text=True,
                               check=True).stdout
    without = _run(f"import sys; from bounds.estimate import main; sys.exit(main({argv!r}))")  # in-process: no
    assert with_them == without and json.loads(with_them)["mode"] == "interval"


def test_main_called_in_process_leaves_the_allocator_alone(monkeypatch, tmp_path, capsys):
    """``main([...])`` in a test process does not change that process; ``main()`` (the process's own command
    line) does -- the negative control that the check can fail."""
    import bounds.estimate as estimate

    calls = []
    monkeypatch.setattr(process, "keep_freed_memory", lambda: calls.append(1) or True)
    assert estimate.main(["--task", "modp", "--json"]) == 0 and calls == []
    monkeypatch.setattr(sys, "argv", ["bounds.estimate", "--task", "modp", "--json"])
    assert estimate.main() == 0 and calls == [1]

"""``lengthgen_cli.memory.keep_freed_memory``: glibc's thresholds raised where glibc is the C library, nothing
done (and False) where ``mallopt`` is missing; the estimate's output does not depend on it."""

import ctypes
import json
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from lengthgen_cli import memory


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_thresholds_are_set_on_glibc():
    code = "from lengthgen_cli.memory import keep_freed_memory; print(keep_freed_memory())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"


def test_nothing_is_done_without_mallopt(monkeypatch):
    """Negative control: a C library without ``mallopt`` is reported, not an error."""

    class NoMallopt:
        def __init__(self, name):
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert memory.keep_freed_memory() is False


def test_estimate_output_does_not_depend_on_it(tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
    try:
        from bench_bounds import model_dict
    finally:
        sys.path.pop(0)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model_dict(16, 6, 4, 16)))
    argv = ["--model", str(path), "--mode", "interval", "--json"]
    runs = [f"import sys; from bounds.estimate import main; sys.exit(main({argv!r}))",
            "import sys; import lengthgen_cli.memory as m; m.keep_freed_memory = lambda: False; "
            f"from bounds.estimate import main; sys.exit(main({argv!r}))"]
    outs = [subprocess.run([sys.executable, "-c", c], capture_output=True, text=True, check=True).stdout for c in runs]
    assert outs[0] == outs[1] and json.loads(outs[0])["mode"] == "interval"

"""Start-up of ``python -m bounds.estimate --task modp``: only what the ModP estimate needs is imported.

The estimate's start-up goal is under twice ``python -c "import numpy"`` (``scripts/bench_bounds.py`` measures it);
what keeps it there is that a task estimate loads neither the evaluators, the exact arithmetic, the interval
reader, the true-threshold machinery nor the JSON schema support.  Those are loaded on first use
(:mod:`constructions.lazy`, imports inside functions).
"""

import json
import subprocess
import sys

HEAVY = ("constructions.limit_transformer.evaluate", "constructions.limit_transformer.exact",
         "constructions.limit_transformer.cache", "constructions.limit_transformer.serialize",
         "constructions.tasks.sine_mlp", "bounds.auxiliary", "bounds.interval_model", "bounds.interval_margin",
         "jsonschema", "scipy", "sympy", "torch", "z3")


def _loaded_after(code: str) -> set:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_task_estimate_loads_nothing_heavy():
    loaded = _loaded_after("from bounds.estimate import main\nmain(['--task', 'modp'])")
    assert "bounds.corrected" in loaded and "constructions.tasks.modp" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_lazy_package_names_still_resolve():
    """The package-level names load their module on first use (negative control of the test above: the same
    probe sees the evaluator once a name from it is used)."""
    loaded = _loaded_after("from constructions.limit_transformer import forward, ModelFormatError\n"
                           "from constructions.tasks import SimpleTask")
    assert {"constructions.limit_transformer.evaluate", "constructions.tasks.simple"} <= loaded
    import constructions.limit_transformer as lt

    assert "forward" in dir(lt) and lt.forward.__module__ == "constructions.limit_transformer.evaluate"
    try:
        lt.no_such_name  # noqa: B018
    except AttributeError as e:
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("an unknown name must raise AttributeError")

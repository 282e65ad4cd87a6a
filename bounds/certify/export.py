"""Files out of the certificate: a trained run as a model file, and a long failing input written out.

* ``python -m bounds.certify --export-model RUN.json [--seed-index K] --out model.json``: seed K of a trained run
  record (one file of a ``bounds.experiments.measure`` run folder, ``{"key", "record"}``, or a bare record with
  ``"runs"``) as the exact Limit Transformer of :func:`bounds.certify.trained.from_record` (Izzo et al. sec. 3.1;
  JSON, or the exact binary format for a ``.npz`` name), for ``--model`` of this tool and of ``bounds.estimate``.
  Anything else (a sweep summary without weights, a seed index out of range, absolute positions) is one line.
* ``python -m bounds.certify --write-witness CERT.json --out FILE``: the shortest failing input of a ``--json``
  certificate (:mod:`bounds.certify.horizon`) written out as its string (without ``$``), streamed in chunks, when
  the text report gives only its class counts (longer than WITNESS_STRING_LIMIT symbols); refused above
  WITNESS_WRITE_LIMIT symbols.
"""

from __future__ import annotations

import json
import re

import numpy as np

from lengthgen_cli import UsageError
from lengthgen_cli.inputs import require_regular_file
from lengthgen_cli.output import check_target, write_file


def _read_json(path: str, what: str):
    p = require_regular_file(path, what)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UsageError(f"{what} {p} is not JSON ({str(e).splitlines()[0]})") from None


# ---------------------------------------------------------------------------------------------- model export
def run_record(data, path: str) -> dict:
    """The training record inside a run file (``{"key", "record"}``) or a bare record with ``"runs"``; one line
    naming what is missing otherwise."""
    rec = data.get("record", data) if isinstance(data, dict) else None
    if not isinstance(rec, dict) or not isinstance(rec.get("runs"), list):
        hint = (" (a sweep summary: its runs carry no weights; give one file of the run folder)"
                if isinstance(data, dict) and "tasks" in data else "")
        raise UsageError(f"{path} is not a trained run record: no \"runs\" list{hint}")
    missing = [k for k in ("task_kind", "task_params", "N", "config") if k not in rec]
    if missing:
        raise UsageError(f"{path} is not a trained run record: it lacks {', '.join(missing)}")
    return rec


def _is_model_file(text: str) -> bool:
    from constructions.limit_transformer.serialize import FORMAT

    try:
        return json.loads(text).get("format") == FORMAT
    except (json.JSONDecodeError, AttributeError):
        return False


def export_model(path: str, seed_index: int, out: str | None) -> str:
    """Write seed ``seed_index`` of the run record at ``path`` to ``out``; the line the command prints."""
    from bounds.certify.trained import ConversionError, TaskSpecError, from_record
    from constructions.limit_transformer.serialize import save_model

    if out is None:
        raise UsageError("--export-model needs --out FILE (.json, or .npz for the exact binary format)")
    rec = run_record(_read_json(path, "--export-model"), path)
    count = len(rec["runs"])
    if not 0 <= seed_index < count:
        raise UsageError(f"--seed-index {seed_index} is out of range: {path} holds {count} seed(s), 0..{count - 1}")
    run = rec["runs"][seed_index]
    if not isinstance(run, dict) or "weights" not in run:
        raise UsageError(f"{path}: seed index {seed_index} carries no weights (train with weights kept)")
    if str(out).endswith(".npz"):
        from constructions.limit_transformer.npz import is_npz

        target = check_target(out, what="--out")
        if target.exists() and target.stat().st_size and not is_npz(target):
            raise UsageError(f"--out {out} exists and is not a file this tool writes; choose another name")
    else:
        check_target(out, what="--out", recognise=_is_model_file)
    try:
        model = from_record(rec, seed_index)
    except (ConversionError, TaskSpecError) as e:
        raise UsageError(f"{path}: {e}") from None
    except (KeyError, TypeError, ValueError) as e:
        raise UsageError(f"{path}: seed index {seed_index} has malformed weights ({type(e).__name__}: {e})") from None
    save_model(model, out)
    return (f"wrote {out}: {model.name} (the file declares the izzo precision model with p = "
            f"{model.precision_bits}; certify the trained network's exact softmax with --semantics softmax)")


# -------------------------------------------------------------------------------------------- witness writing
def witness_chunks(counts: dict, window, delta: int, alphabet, chunk: int = 1 << 20):
    """The string of :func:`bounds.true_threshold.witness_string` (the same order: position i >= 2 of residue
    ``(i - 1) mod Delta`` takes that residue's classes in decreasing order, then the window) in pieces of at most
    ``chunk`` symbols, without building it whole."""
    counts = {int(k): int(v) for k, v in counts.items()}
    M = sum(counts.values())
    symbols = np.array(list(alphabet), dtype=object)
    pools = []
    for r in range(delta):
        cls = sorted((c for c in counts if c % delta == r and c and counts[c]), reverse=True)
        pools.append((np.array([c // delta for c in cls], dtype=np.int64),
                      np.cumsum([counts[c] for c in cls], dtype=np.int64)))
    for a in range(2, M + 1, chunk):
        i = np.arange(a, min(a + chunk, M + 1), dtype=np.int64)
        r = (i - 1) % delta
        j = (i - 1 - r) // delta - (r == 0)  # index of position i among the positions >= 2 of its residue
        tok = np.empty(len(i), dtype=np.int64)
        for res in range(delta):
            sel = r == res
            if sel.any():
                toks, cum = pools[res]
                tok[sel] = toks[np.searchsorted(cum, j[sel], side="right")]
        yield "".join(symbols[tok - 1])
    tail = [int(c) // delta for c in window if int(c)]
    if tail:
        yield "".join(symbols[np.array(tail) - 1])


def _is_witness_text(text: str) -> bool:
    return re.fullmatch(r"[^\s{}\[\]]*\n?", text) is not None


def write_witness(path: str, out: str | None) -> str:
    """Write the shortest failing input of the ``--json`` certificate at ``path`` to ``out``."""
    from bounds.certify.horizon import WITNESS_WRITE_LIMIT

    if out is None:
        raise UsageError("--write-witness needs --out FILE")
    data = _read_json(path, "--write-witness")
    h = data.get("horizon") if isinstance(data, dict) else None
    w = h.get("witness") if isinstance(h, dict) else None
    if not isinstance(w, dict) or not w:
        raise UsageError(f"{path} is not a certificate with a failing input (python -m bounds.certify ... --json)")
    symbols = w["length"] - 1
    if symbols > WITNESS_WRITE_LIMIT:
        raise UsageError(f"the failing input has {symbols} symbols, above the limit WITNESS_WRITE_LIMIT = "
                         f"{WITNESS_WRITE_LIMIT}; its class counts are in {path}")
    check_target(out, what="--out", recognise=_is_witness_text)

    def write(fh):
        if w.get("string") is not None:
            fh.write(w["string"])
        else:
            for piece in witness_chunks(w["counts"], w["window"], int(w["period"]), w["alphabet"]):
                fh.write(piece)
        fh.write("\n")

    write_file(out, write, what="--out")
    return f"wrote {out}: the failing input of model length {w['length']} ({symbols} symbols, without $)"

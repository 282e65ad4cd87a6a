"""Files out of the certificate: a trained run as a model file, and a long failing input written out.

* ``python -m bounds.certify --export-model RUN.json [--seed-index K] --out model.json``: seed K of a trained run
  record (one file of a ``bounds.experiments.measure`` run folder, ``{"key", "record"}``, or a bare record with
  ``"runs"``) as the exact Limit Transformer of :func:`bounds.certify.trained.from_record` (Izzo et al. sec. 3.1;
  JSON, or the exact binary format for a ``.npz`` name), for ``--model`` of this tool and of ``bounds.estimate``.
  Anything else (a sweep summary without weights, a seed index out of range, absolute positions) is one line.
* ``python -m bounds.certify --write-witness CERT.json --out FILE``: the shortest failing input of a ``--json``
  certificate (:mod:`bounds.certify.horizon`) written out as its string (without ``$``), streamed in chunks, when
  the text report gives only its class counts (longer than WITNESS_STRING_LIMIT symbols); refused above
  WITNESS_WRITE_LIMIT symbols.  For a GPT-2 certificate (:mod:`bounds.certify.gpt2_search`) that fails: its
  input as one line of token ids separated by spaces, BOS first (as the model consumes it).
* ``python -m bounds.certify --model F --against G --write-onnx CERT.json --out DIR``: the failing input of a
  GPT-2 ``--json`` certificate of the pair F, G as a fixed-length verification problem
  (:mod:`bounds.certify.gpt2_onnx`): ``DIR/model.onnx`` (float32 graph of f - g at the input's length, each
  model's position rows added),
  ``DIR/property.vnnlib``, ``DIR/witness.json`` (token ids, input encoding, the values) and ``DIR/instances.csv``
  (the VNN-COMP benchmark list).  The input is re-run through both torch forwards and the graph before anything is
  written; an input that does not fail for the pair given is refused.
"""

from __future__ import annotations

import json
import math
import os
import re

import numpy as np

from lengthgen_cli import UsageError
from lengthgen_cli.inputs import require_regular_file
from lengthgen_cli.output import check_output_folder, check_target, json_object_with, write_file

GPT2_CERTIFICATE = "gpt2-pair"  # the "certificate" field of a GPT-2 pair's --json certificate
GPT2_TASK_CERTIFICATE = "gpt2-task"  # ... and of a GPT-2 model against its task
ONNX_WITNESS_FORMAT = "lengthgen-gpt2-onnx-witness"
VNNLIB_HEADER = "; bounds.certify: a failing input of a one-layer NoPE GPT-2 certificate"
INSTANCES_TIMEOUT_S = 60  # the timeout column of instances.csv (the VNN-COMP benchmark list)


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
    """A string of symbols (a pair certificate's witness) or a line of token ids (a GPT-2 certificate's)."""
    return re.fullmatch(r"[^\s{}\[\]]*\n?|[0-9]+( [0-9]+)*\n?", text) is not None


def failing_record(data):
    """A GPT-2 task certificate over several margins (``records``) stands for its first refuted record (the largest
    refuted margin); any other certificate for itself."""
    if isinstance(data, dict) and isinstance(data.get("records"), list):
        return next((r for r in data["records"] if isinstance(r, dict) and r.get("verdict") == "fails"), data)
    return data


def _gpt2_failing(data, path: str, option: str) -> dict:
    """The witness of a GPT-2 ``--json`` certificate (one line if it is not one whose verdict is ``fails``)."""
    w = data.get("witness") if isinstance(data, dict) else None
    if data.get("verdict") != "fails" or not isinstance(w, dict) or not isinstance(w.get("counts"), list | dict):
        raise UsageError(f"{option} {path} is not a GPT-2 certificate with a failing input (verdict "
                         f"{data.get('verdict')!r}; python -m bounds.certify --model DIR (--against DIR2 | --task "
                         "NAME) --json)")
    return w


def _write_token_ids(path: str, data: dict, out: str) -> str:
    """The failing input of a GPT-2 certificate (pair or task: the letters, then the separator) as one line of token
    ids, BOS first, streamed in runs."""
    from bounds.certify.gpt2_search import id_runs
    from bounds.certify.horizon import WITNESS_WRITE_LIMIT

    w = _gpt2_failing(data, path, "--write-witness")
    try:
        if data.get("certificate") == GPT2_TASK_CERTIFICATE:
            bos, alphabet = task_reading(data)
            n = int(w["length"]) + 1
            runs = id_runs(alphabet, [*w["counts"].values(), 1], len(alphabet) - 1)
        else:
            n, alphabet, bos = int(w["length"]), [int(a) for a in data["alphabet"]], int(data["bos"])
            runs = id_runs(alphabet, w["counts"], alphabet.index(int(w["last"])))
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UsageError(f"--write-witness {path}: malformed GPT-2 witness ({type(e).__name__}: {e})") from None
    if n > WITNESS_WRITE_LIMIT:
        raise UsageError(f"the failing input has {n} tokens, above the limit WITNESS_WRITE_LIMIT = "
                         f"{WITNESS_WRITE_LIMIT}; its counts are in {path}")
    check_target(out, what="--out", recognise=_is_witness_text)

    def write(fh):
        fh.write(str(bos))
        for a, r in runs:
            piece = f" {a}"
            for k in range(0, r, 1 << 20):
                fh.write(piece * min(1 << 20, r - k))
        fh.write("\n")

    write_file(out, write, what="--out")
    return f"wrote {out}: the failing input of {n} tokens as {n + 1} token ids, BOS {bos} first"


CERTIFICATES = ("target", "construction")  # the certificates of a --runs record (runs.certify_seed)


def parse_seed_key(text: str) -> tuple[str, int, str]:
    """``RUN_KEY:SEED:CERTIFICATE`` (the run key and seed of a ``--runs`` record, and which of its certificates:
    ``target`` or ``construction``), split at its last two colons; one line naming what is wrong otherwise."""
    parts = text.rsplit(":", 2)
    if len(parts) != 3 or not parts[0] or not parts[1].isdigit() or parts[2] not in CERTIFICATES:
        raise UsageError(f"--seed-key {text!r} is not RUN_KEY:SEED:CERTIFICATE (SEED a number, CERTIFICATE one of "
                         f"{', '.join(CERTIFICATES)}), e.g. 'izzo2025/modp(index=0,period=2)/N=12/seeds=4/cfg=...:1:target'")
    return parts[0], int(parts[1]), parts[2]


def _runs_certificate(path: str, seed_key: str) -> dict:
    """The certificate named by ``--seed-key`` in the ``--runs`` records file (JSON lines) at ``path``."""
    from lengthgen_cli.output import _records

    key, seed, which = parse_seed_key(seed_key)
    p = require_regular_file(path, "--write-witness")
    try:
        records, _ = _records(p, p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"--write-witness {p} cannot be read as text ({e})") from None
    except UsageError:
        raise UsageError(f"--write-witness {p} is not a --runs records file (JSON lines)") from None
    found = [r for r in records if r.get("run_key") == key and r.get("seed") == seed]
    if not found:
        raise UsageError(f"--write-witness {p} holds no record of run {key!r} seed {seed}")
    cert = found[-1].get(which)
    if not isinstance(cert, dict):
        why = f" (refused: {found[-1]['refused']})" if "refused" in found[-1] else ""
        raise UsageError(f"the record of run {key!r} seed {seed} has no {which} certificate{why}")
    return cert


def write_witness(path: str, out: str | None, seed_key: str | None = None) -> str:
    """Write the shortest failing input of the ``--json`` certificate at ``path`` to ``out``; with ``seed_key``
    (``RUN_KEY:SEED:CERTIFICATE``), ``path`` is a ``--runs`` records file and the certificate is that seed's."""
    from bounds.certify.horizon import WITNESS_WRITE_LIMIT

    if out is None:
        raise UsageError("--write-witness needs --out FILE")
    data = _read_json(path, "--write-witness") if seed_key is None else _runs_certificate(path, seed_key)
    if isinstance(data, dict) and data.get("certificate") in (GPT2_CERTIFICATE, GPT2_TASK_CERTIFICATE):
        return _write_token_ids(path, failing_record(data), out)
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


# ------------------------------------------------------------------------------------------ ONNX and VNN-LIB
def _is_our_onnx(path) -> bool:
    import onnx

    from bounds.certify.gpt2_onnx import PRODUCER

    try:
        return onnx.load(str(path), load_external_data=False).producer_name == PRODUCER
    except Exception:  # noqa: BLE001 - any file that does not parse as an ONNX model is not ours
        return False


def _onnx_targets(out: str) -> dict:
    """The four files under ``out``, each checked before any work: inside the folder, not a device or another
    kind of file, an existing one only if this command wrote it."""
    check_output_folder(out, "--out")
    names = {"onnx": "model.onnx", "vnnlib": "property.vnnlib", "witness": "witness.json", "csv": "instances.csv"}
    paths = {k: os.path.join(out, v) for k, v in names.items()}
    if os.path.isdir(out):
        check_target(paths["onnx"], what="--out file", within=out)
        if os.path.isfile(paths["onnx"]) and os.path.getsize(paths["onnx"]) and not _is_our_onnx(paths["onnx"]):
            raise UsageError(f"--out file {paths['onnx']} exists and is not a file this tool writes; choose another "
                             "folder")
        check_target(paths["vnnlib"], what="--out file", within=out, recognise=lambda t: t.startswith(VNNLIB_HEADER))
        check_target(paths["witness"], what="--out file", within=out,
                     recognise=json_object_with(format=ONNX_WITNESS_FORMAT))
        check_target(paths["csv"], what="--out file", within=out,
                     recognise=lambda t: t == _instances_line(names))
    return paths


def _instances_line(names: dict) -> str:
    return f"{names['onnx']},{names['vnnlib']},{INSTANCES_TIMEOUT_S}\n"


def check_onnx_target(out: str | None) -> dict:
    """``--write-onnx`` needs ``--out DIR``; the paths it will write, checked (before the models are read)."""
    if out is None:
        raise UsageError("--write-onnx needs --out DIR (a folder: model.onnx, property.vnnlib, witness.json and "
                         "instances.csv are written into it)")
    try:
        import onnx  # noqa: F401
    except ImportError:
        raise UsageError("--write-onnx needs the onnx package (pip install 'lengthgen[onnx]')") from None
    return _onnx_targets(out)


def read_onnx_certificate(path: str) -> dict:
    """A GPT-2 ``--json`` certificate (pair or task) whose verdict is ``fails`` with the input's token ids; one line
    naming what is missing otherwise."""
    from bounds.certify.gpt2_onnx import MAX_ONNX_LENGTH

    data = failing_record(_read_json(path, "--write-onnx"))
    if not isinstance(data, dict) or data.get("certificate") not in (GPT2_CERTIFICATE, GPT2_TASK_CERTIFICATE):
        raise UsageError(f"--write-onnx {path} is not a GPT-2 certificate (python -m bounds.certify --model DIR "
                         "--against DIR2 --json, or --model DIR --task NAME ... --json)")
    w = data.get("witness")
    if data.get("verdict") != "fails" or not isinstance(w, dict):
        raise UsageError(f"--write-onnx {path} has no failing input (verdict {data.get('verdict')!r})")
    ids = w.get("ids")
    if not isinstance(ids, list) or not all(isinstance(t, int) for t in ids):
        raise UsageError(f"--write-onnx {path}: the failing input has no token ids (longer than the torch check's "
                         "limit)")
    if len(ids) + 1 > MAX_ONNX_LENGTH:
        raise UsageError(f"the failing input has {len(ids) + 1} positions, above MAX_ONNX_LENGTH = {MAX_ONNX_LENGTH}")
    return data


def task_reading(data: dict) -> tuple[int, list]:
    """BOS and the alphabet (the letters' ids, then the separator's) a task certificate's model was read with."""
    try:
        return int(data["bos"]), [int(v) for v in data["letters"].values()] + [int(data["separator"])]
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UsageError(f"--write-onnx: the task certificate lacks its token ids ({type(e).__name__}: {e})") from None


def _float32_checked(y, ref, slack: float, what: str) -> float:
    """The float32 graph's output ``y`` against the float64 torch values ``ref`` (FLOAT32_TOLERANCE, relative) and
    the amount ``slack`` by which the float32 value clears the property's threshold (must exceed the tolerance)."""
    from bounds.certify.gpt2_onnx import FLOAT32_TOLERANCE

    err = float(np.max(np.abs(y - ref) / np.maximum(1.0, np.abs(ref))))
    if err > FLOAT32_TOLERANCE:
        raise UsageError(f"the float32 graph differs from the float64 model by {err:.3g} (relative), above "
                         f"FLOAT32_TOLERANCE = {FLOAT32_TOLERANCE}")
    tol = FLOAT32_TOLERANCE * max(1.0, float(np.max(np.abs(ref))))
    if slack <= tol:
        raise UsageError(f"the float32 value clears {what} by {slack:.3g}, within the float32 tolerance {tol:.3g}: a "
                         "float32 verifier's answer would be decided by rounding")
    return err


def _write_problem(paths: dict, out: str, model, x, outputs: int, condition, comments, record: dict) -> None:
    from bounds.certify.gpt2_onnx import FLOAT32_TOLERANCE, vnnlib

    record = {"format": ONNX_WITNESS_FORMAT, **record, "float32_tolerance": FLOAT32_TOLERANCE,
              "condition": [[j, op, c] for j, op, c in condition]}
    text = vnnlib(x, outputs, condition, [VNNLIB_HEADER[2:], *comments])
    write_file(paths["onnx"], lambda fh: fh.write(model.SerializeToString()), binary=True, what="--out file",
               within=out, make_folder=True)
    write_file(paths["vnnlib"], lambda fh: fh.write(text), what="--out file", within=out)
    write_file(paths["witness"], lambda fh: fh.write(json.dumps(record) + "\n"), what="--out file", within=out)
    names = {k: os.path.basename(v) for k, v in paths.items()}
    write_file(paths["csv"], lambda fh: fh.write(_instances_line(names)), what="--out file", within=out)


def _encoding_comments(f, ids) -> list:
    classes = [f.bos, *f.alphabet]
    return [f"input encoding: X_(p*{len(classes)} + c) = 1 iff position p (0 = BOS) holds class c; classes = "
            f"token ids {classes} (class 0 = BOS)", f"token ids (BOS first): {' '.join(map(str, ids))}"]


def _positions_comment(forms: dict) -> str:
    """How the graph reads positions (:mod:`bounds.certify.gpt2_onnx`, the position term), one comment line."""
    return (f"positions: {', '.join(f'{k} {v.positions}' for k, v in forms.items())}; the graph adds the rows "
            "wpe[p mod P] (an absolute table: wpe[p]) after the embedding MatMul, none for NoPE; the encoding X stays "
            "the one-hot tokens")


ENCODING = ("X[0, p, c] = 1 iff position p (0 = BOS) holds token id classes[c]; flattened in C order as VNN-LIB "
            "X_i, i = p * len(classes) + c")


def write_onnx(path: str, f, g, out: str, names=("f", "g")) -> str:
    """Write the failing input of the GPT-2 pair certificate at ``path`` for the pair ``f``, ``g`` (forms of
    :mod:`bounds.certify.gpt2`) into the folder ``out``; the line the command prints."""
    from bounds.certify.gpt2_onnx import evaluate, graph, onehot

    paths = check_onnx_target(out)
    data = read_onnx_certificate(path)
    if data["certificate"] != GPT2_CERTIFICATE:
        raise UsageError(f"--write-onnx {path} is a task certificate: give --model alone (no --against)")
    eps = data.get("eps")
    if not isinstance(eps, int | float):
        raise UsageError(f"--write-onnx {path}: the certificate has no eps")
    if (data.get("bos"), data.get("alphabet")) != (f.bos, list(f.alphabet)):
        raise UsageError(f"{path} was made with BOS {data.get('bos')} and alphabet {data.get('alphabet')}, the "
                         f"models read here have BOS {f.bos} and alphabet {list(f.alphabet)} (give the same --bos "
                         "and --alphabet)")
    ids = [f.bos, *data["witness"]["ids"]]
    try:
        x = onehot(f, ids)
        model = graph(f, len(ids), g)
    except ValueError as e:
        raise UsageError(f"--write-onnx {path}: {e}") from None
    diff = f.torch_logits(ids[1:]) - g.torch_logits(ids[1:])
    j = int(np.argmax(np.abs(diff)))
    if not abs(diff[j]) > eps:
        raise UsageError(f"the input of {path} gives max_j |f_j - g_j| = {abs(diff[j]):.6g} <= eps = {eps:.6g} for "
                         "these models (torch forward): it is not a failing input of this pair")
    y = evaluate(model, x)
    sign = 1 if diff[j] > 0 else -1
    margin = sign * float(y[j]) - eps
    err = _float32_checked(y, diff, margin, f"eps = {eps:.6g}")
    condition = [(j, ">=", float(eps))] if sign > 0 else [(j, "<=", -float(eps))]
    comments = [f"f = {names[0]}, g = {names[1]}; graph model.onnx computes Y = f - g, the last-position logits, on "
                f"X [1, {len(ids)}, {1 + len(f.alphabet)}]", *_encoding_comments(f, ids),
                _positions_comment({"f": f, "g": g}),
                f"sat iff f_{j} - g_{j} {'>=' if sign > 0 else '<='} {'' if sign > 0 else '-'}eps: the failing input "
                f"(torch float64 f_{j} - g_{j} = {float(diff[j])!r}, float32 graph {float(y[j])!r})"]
    record = {"certificate": path, "model": names[0], "against": names[1], "model_ids": ids,
              "classes": [f.bos, *f.alphabet], "encoding": ENCODING, "output": j, "eps": float(eps), "sign": sign,
              "f_minus_g_torch": float(diff[j]), "f_minus_g_onnx_float32": float(y[j]),
              "max_relative_error_float32": err, "margin_float32": margin,
              "positions": [f.positions, g.positions], "period": math.lcm(f.period, g.period)}
    _write_problem(paths, out, model, x, len(diff), condition, comments, record)
    return (f"wrote {out}: model.onnx (f - g, float32, {len(ids)} positions), property.vnnlib (sat iff "
            f"Y_{j} {'>= eps' if sign > 0 else '<= -eps'}, eps = {eps:.6g}; the graph gives Y_{j} = {float(y[j]):.9g}), "
            "witness.json, instances.csv")


def write_task_onnx(path: str, f, out: str, name: str = "f") -> str:
    """Write the failing input of the GPT-2 task certificate at ``path`` (:func:`bounds.certify.gpt2_task.
    certify_task`: the answer's logit not above every competitor's by more than delta) for the model ``f`` into
    the folder ``out``; the line the command prints."""
    from bounds.certify.gpt2_onnx import evaluate, graph, onehot

    paths = check_onnx_target(out)
    data = read_onnx_certificate(path)
    w = data["witness"]
    try:
        delta, y_id, readout = float(data["logit_margin"]), int(w["answer_id"]), data["readout"]
        answers = [int(v) for v in data["answers"].values()]
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UsageError(f"--write-onnx {path}: malformed task certificate ({type(e).__name__}: {e})") from None
    outputs = f.head_w.shape[0]
    if not 0 <= y_id < outputs or any(not 0 <= a < outputs for a in answers):
        raise UsageError(f"{path}: answer ids {answers} are not outputs of the model read here (0..{outputs - 1})")
    competitors = [j for j in (range(outputs) if readout == "argmax" else answers) if j != y_id]
    ids = [f.bos, *w["ids"]]
    try:
        x = onehot(f, ids)
        model = graph(f, len(ids), answer=y_id)
    except ValueError as e:
        raise UsageError(f"--write-onnx {path}: {e}") from None
    logits = f.torch_logits(ids[1:])
    gaps = logits - logits[y_id]
    gap = -float(max(gaps[j] for j in competitors))
    if not gap <= delta:
        raise UsageError(f"the input of {path} has gap {gap:.6g} > delta = {delta:.6g} for this model (torch "
                         "forward): it is not a failing input of it")
    y = evaluate(model, x)
    slack = float(max(y[j] for j in competitors)) + delta
    err = _float32_checked(y, gaps, slack, f"-delta = {-delta:.6g}")
    condition = [(j, ">=", -delta + 0.0) for j in competitors]  # + 0.0: -0 written as 0
    comments = [f"model {name} against {data.get('task')} (readout {readout}); graph model.onnx computes Y_j = "
                f"logit_j - logit_{y_id} (the answer {w.get('answer')!r}) at the last position, on "
                f"X [1, {len(ids)}, {1 + len(f.alphabet)}]", *_encoding_comments(f, ids),
                _positions_comment({"model": f}),
                f"sat iff some competitor j has logit_j - logit_{y_id} >= -delta = {-delta + 0.0!r}: the gap "
                f"logit_{y_id} - max_j logit_j <= delta (torch float64 gap {gap!r}, float32 graph "
                f"{-float(max(y[j] for j in competitors))!r})"]
    record = {"certificate": path, "model": name, "task": data.get("task"), "model_ids": ids,
              "classes": [f.bos, *f.alphabet], "encoding": ENCODING, "answer_id": y_id, "competitors": competitors,
              "logit_margin": delta, "gap_torch": gap, "max_relative_error_float32": err, "margin_float32": slack,
              "positions": f.positions}
    _write_problem(paths, out, model, x, outputs, condition, comments, record)
    return (f"wrote {out}: model.onnx (logit_j - logit_{y_id}, float32, {len(ids)} positions), property.vnnlib (sat "
            f"iff some of {len(competitors)} competitors has Y_j >= -delta = {-delta + 0.0:.6g}), witness.json, "
            "instances.csv")

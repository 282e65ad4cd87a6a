"""JSON files for Limit Transformers (schema ``lengthgen.limit-transformer``, version 1).

Numbers are written as exact rational strings (``"3/4"``); on reading, strings, integers and JSON floats
are accepted (a JSON float is read by its decimal text, so ``0.1`` means 1/10).  Only Periodic and Local
models can be written (encodings and phi as tables).  Every file read is validated against the published
JSON Schema ``limit-transformer.schema.json`` (shipped beside this module, :data:`SCHEMA_PATH`; Draft
2020-12, checked with ``jsonschema``), then the shapes are checked by the model itself.  Every problem with a
file raises :class:`ModelFormatError` naming the field path (``layers[0].heads[1].query[2][0]``) and what to
fix.  Layout::

    {"format": "lengthgen.limit-transformer", "version": 1, "name": "...", "alphabet": ["0", "1"],
     "precision": "izzo", "precision_bits": 8,
     "embedding": [[...], ...],                       # |Sigma|+1 rows, row 0 is "$"
     "positions": {"period": D, "table": [[...], ...]} | null,
     "layers": [{"heads": [{"query": .., "key": .., "value": .., "phi": {"tau": t, "values": [...]} | null}],
                 "mlp": {"A": .., "b": .., "B": .., "activations": ["relu", "heaviside", ...]} | null}],
     "unembedding": [[...], ...], "metadata": {...}}
"""

from __future__ import annotations

import functools
import json
from fractions import Fraction
from pathlib import Path

import numpy as np

from constructions.limit_transformer.errors import LimitTransformerError, ModelFormatError, field_path
from constructions.limit_transformer.model import (
    MLP,
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
)
from lengthgen_cli.inputs import require_regular_file

FORMAT = "lengthgen.limit-transformer"
VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("limit-transformer.schema.json")


@functools.cache
def model_schema() -> dict:
    """The JSON Schema of model files (the published ``limit-transformer.schema.json``)."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _inline_numbers(schema: dict):
    """The schema with the number, vector and matrix definitions inlined: the same rules, and the number
    sub-schema is one object that :func:`_validator` recognises."""
    number = schema["$defs"]["number"]
    vector = {"type": "array", "items": number}
    matrix = {"type": "array", "items": vector}
    refs = {"#/$defs/number": number, "#/$defs/vector": vector, "#/$defs/matrix": matrix}

    def walk(x):
        if isinstance(x, dict):
            return refs[x["$ref"]] if x.get("$ref") in refs else {k: walk(v) for k, v in x.items()}
        return [walk(v) for v in x] if isinstance(x, list) else x

    return walk(schema), number


@functools.cache
def _validator():
    """A Draft 2020-12 validator of :func:`model_schema` whose ``items`` keyword checks arrays of numbers in one
    loop (same rule: a JSON number that is not a boolean, or a string matching the schema's pattern); a
    compiled model has ~10^5 numbers, which the generic keyword takes seconds for."""
    import re

    import jsonschema

    schema, number = _inline_numbers(model_schema())
    pattern = re.compile(number["pattern"])
    base = jsonschema.validators.validator_for(schema)
    generic_items = base.VALIDATORS["items"]

    def items(validator, sub, instance, schema_):
        if sub is not number or not isinstance(instance, list):
            yield from generic_items(validator, sub, instance, schema_)
            return
        for i, x in enumerate(instance):
            ok = (isinstance(x, int | float) and not isinstance(x, bool)) or (isinstance(x, str) and pattern.search(x))
            if not ok:
                kind = "pattern" if isinstance(x, str) else "type"
                yield jsonschema.ValidationError(f"{x!r} is not {number['description']}", validator=kind,
                                                 validator_value=number[kind], instance=x, schema=number, path=[i])

    return jsonschema.validators.extend(base, {"items": items})(schema)


def _schema_message(error) -> str:
    value = json.dumps(error.instance) if not isinstance(error.instance, dict | list) else type(error.instance).__name__
    value = value if len(value) <= 40 else value[:37] + "..."
    if error.validator == "pattern" or (error.validator == "type" and "description" in error.schema):
        return f"{value} is not {error.schema.get('description', 'valid')}"
    if error.validator == "type":
        want = error.validator_value if isinstance(error.validator_value, str) else " or ".join(error.validator_value)
        return f"expected {want}, got {value}"
    if error.validator == "oneOf":
        return f"{value} is neither null nor a valid object ({'; '.join(sorted({c.message[:80] for c in error.context}))})"
    message = error.message
    return message if len(message) <= 160 else message[:157] + "..."


def validate_model_dict(data) -> None:
    """Check ``data`` against the model file schema; :class:`ModelFormatError` names the first bad field path."""
    import jsonschema

    error = jsonschema.exceptions.best_match(_validator().iter_errors(data))
    if error is not None:
        raise ModelFormatError(f"{field_path(error.absolute_path)}: {_schema_message(error)}")


def _mat(a: np.ndarray) -> list:
    return [[str(Fraction(x)) for x in row] for row in a]


def _num(x):
    if isinstance(x, float):
        return repr(x)
    return x


def _nested(x):
    if isinstance(x, list):
        return [_nested(v) for v in x]
    return _num(x)


def model_to_dict(model: LimitTransformer) -> dict:
    """A JSON-ready dict; raises :class:`ModelFormatError` for non-Periodic or non-Local models."""
    if model.period is None or model.tau is None:
        raise ModelFormatError("only Periodic and Local models can be serialized (encodings and phi as tables)")
    layers = []
    for layer in model.layers:
        heads = [{"query": _mat(h.query), "key": _mat(h.key), "value": _mat(h.value),
                  "phi": None if h.phi is None else {"tau": h.phi.tau, "values": [str(v) for v in h.phi.values]}}
                 for h in layer.heads]
        mlp = None
        if layer.mlp is not None:
            m = layer.mlp
            mlp = {"A": _mat(m.A), "b": [str(v) for v in m.b], "B": _mat(m.B), "activations": list(m.activations)}
        layers.append({"heads": heads, "mlp": mlp})
    return {"format": FORMAT, "version": VERSION, "name": model.name, "alphabet": list(model.alphabet),
            "precision": model.precision, "precision_bits": model.precision_bits,
            "embedding": _mat(model.embedding),
            "positions": None if model.positions is None else {"period": model.period,
                                                               "table": _mat(model.positions.table)},
            "layers": layers, "unembedding": _mat(model.unembedding), "metadata": model.metadata}


def _require(obj: dict, key: str, where: str):
    if not isinstance(obj, dict):
        raise ModelFormatError(f"{where} must be a JSON object")
    if key not in obj:
        raise ModelFormatError(f"{where} is missing the field {key!r}")
    return obj[key]


def model_from_dict(data: dict) -> LimitTransformer:
    """Build and validate a model from :func:`model_to_dict`'s layout (:class:`ModelFormatError` on any problem)."""
    if not isinstance(data, dict):
        raise ModelFormatError("a model file must hold one JSON object")
    if data.get("format") != FORMAT:
        raise ModelFormatError(f"not a Limit Transformer file: 'format' must be {FORMAT!r}")
    if data.get("version") != VERSION:
        raise ModelFormatError(f"unsupported schema version {data.get('version')!r}; this library reads version {VERSION}")
    validate_model_dict(data)
    try:
        pos = data.get("positions")
        positions = None
        if pos is not None:
            table = _nested(_require(pos, "table", "positions"))
            positions = PeriodicPositions(table)
            if "period" in pos and pos["period"] != positions.period:
                raise ModelFormatError(f"positions: declared period {pos['period']} but the table has "
                                       f"{positions.period} rows (give exactly one period)")
        layers = []
        for l, ld in enumerate(_require(data, "layers", "model"), 1):
            heads = []
            for h, hd in enumerate(_require(ld, "heads", f"layer {l}"), 1):
                phi = None
                if hd.get("phi") is not None:
                    values = _nested(_require(hd["phi"], "values", f"layer {l} head {h} phi"))
                    phi = LocalPhi(tuple(values))
                    if "tau" in hd["phi"] and hd["phi"]["tau"] != phi.tau:
                        raise ModelFormatError(f"layer {l} head {h} phi: declared tau {hd['phi']['tau']} but "
                                               f"{len(values)} values (need tau + 1, for offsets 0..tau)")
                heads.append(Head(_nested(_require(hd, "query", f"layer {l} head {h}")),
                                  _nested(_require(hd, "key", f"layer {l} head {h}")),
                                  _nested(_require(hd, "value", f"layer {l} head {h}")), phi))
            mlp = None
            if ld.get("mlp") is not None:
                md = ld["mlp"]
                mlp = MLP(_nested(_require(md, "A", f"layer {l} mlp")), _nested(_require(md, "b", f"layer {l} mlp")),
                          _nested(_require(md, "B", f"layer {l} mlp")), tuple(md.get("activations", ())))
            layers.append(Layer(heads, mlp))
        return LimitTransformer(
            alphabet=tuple(_require(data, "alphabet", "model")), embedding=_nested(_require(data, "embedding", "model")),
            layers=layers, unembedding=_nested(_require(data, "unembedding", "model")), positions=positions,
            precision_bits=_require(data, "precision_bits", "model"), precision=_require(data, "precision", "model"),
            name=data.get("name", ""), metadata=data.get("metadata") or {})
    except ModelFormatError:
        raise
    except (LimitTransformerError, TypeError, AttributeError, ValueError) as e:
        raise ModelFormatError(f"inconsistent model: {e}") from e


def save_model(model: LimitTransformer, path) -> None:
    """Write ``model`` to ``path``: the exact binary format of :mod:`constructions.limit_transformer.npz` when the
    name ends in ``.npz`` (:class:`NotFloat64Error` unless every weight is a float64 value), else this JSON format."""
    if str(path).endswith(".npz"):
        from constructions.limit_transformer.npz import write_npz

        write_npz(model_to_dict(model), path)
        return
    from lengthgen_cli.output import write_text

    write_text(path, json.dumps(model_to_dict(model), indent=1) + "\n", what="model file")


def load_model(path) -> LimitTransformer:
    """Read a model file (JSON, or the binary format of :mod:`constructions.limit_transformer.npz`, told apart by
    its first bytes); :class:`ModelFormatError` (with the path) if it is missing, malformed, or inconsistent."""
    p = require_regular_file(path, "model file", ModelFormatError, missing_ok=True)  # a FIFO would block
    from constructions.limit_transformer.npz import exact_dict, is_npz, read_npz

    if is_npz(p):
        data = exact_dict(read_npz(p))
        try:
            return model_from_dict(data)
        except ModelFormatError as e:
            raise ModelFormatError(f"{p}: {e}") from e
    try:
        text = p.read_text()
    except OSError as e:
        raise ModelFormatError(f"cannot read model file {p}: {e.strerror}") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ModelFormatError(f"{p} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from e
    except RecursionError:
        raise ModelFormatError(f"{p} nests its JSON deeper than Python's recursion limit allows") from None
    try:
        return model_from_dict(data)
    except ModelFormatError as e:
        raise ModelFormatError(f"{p}: {e}") from e

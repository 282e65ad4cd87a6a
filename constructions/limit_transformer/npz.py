"""The exact binary model format: a numpy ``.npz`` archive of float64 weight arrays and a JSON header.

A trained model's weights are float64 values, i.e. exact dyadic rationals, so float64 arrays encode them exactly and
load in milliseconds, where the JSON format (:mod:`constructions.limit_transformer.serialize`) spells each one as an
``"a/2^k"`` string that must be parsed.  The archive holds:

* ``header``: a 0-d unicode array, the model as the JSON format lays it out (schema ``lengthgen.limit-transformer``
  version 1, ``limit-transformer.schema.json``) except that every weight array -- ``embedding``,
  ``positions.table``, each head's ``query``/``key``/``value`` and ``phi.values``, the MLP's ``A``/``b``/``B``,
  ``unembedding`` -- is a reference ``{"array": NAME}``;
* one float64 array per reference, named by its field path (``layers[0].heads[1].query``).

Reading first checks the bytes every array's ``.npy`` header declares (shape times item size, before anything is
allocated) and the members' sizes against :data:`MAX_ARCHIVE_BYTES`, then uses ``np.load(allow_pickle=False)``: an
archive with a pickled object, a missing or unreferenced array, an
array that is not float64 or not of the field's dimension, a NaN or infinity, or a header that is not JSON raises
:class:`ModelFormatError`; everything else (shapes against the alphabet and width, the schema) is checked by the
loaders that read the resolved dict, the same code as for a JSON file (:func:`serialize.model_from_dict` after
:func:`exact_dict`, :func:`bounds.interval_model.interval_model_from_dict` on the arrays).  Writing refuses a weight
that is not a float64 value with :class:`NotFloat64Error` (the format is exact or it is nothing).  ``save_model(model,
"m.npz")`` (:mod:`~constructions.limit_transformer.serialize`, which imports this module, not the reverse) writes
an exact model here; ``load_model`` reads either format.
"""

from __future__ import annotations

import json
import math
import os
import stat
import zipfile
from fractions import Fraction

import numpy as np

from constructions.limit_transformer.errors import ModelFormatError, NotFloat64Error, field_path
from constructions.limit_transformer.rationals import to_fraction
from lengthgen_cli.inputs import require_regular_file

HEADER = "header"
MAGIC = b"PK\x03\x04"  # a zip archive (an .npz); a JSON model file starts with '{' or white space
MAX_ARCHIVE_BYTES = 1 << 33  # 8 GiB of arrays: larger archives are refused before anything is loaded
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def declared_bytes(archive: zipfile.ZipFile) -> int:
    """The bytes the archive's arrays would take once loaded, read from each ``.npy`` member's header (its declared
    shape and dtype), not from the member's size: a compressed or truncated member may declare far more than it
    holds, and ``np.load`` allocates what is declared.  Reads only the headers; :class:`ModelFormatError` for a
    member whose header is not an ``.npy`` header of format 1.0 or 2.0."""
    total = 0
    for info in archive.infolist():
        with archive.open(info) as f:
            try:
                version = np.lib.format.read_magic(f)
                if version not in _HEADER_READERS:
                    raise ValueError(f"format version {version[0]}.{version[1]}")
                shape, _, dtype = _HEADER_READERS[version](f)
            except ValueError as e:
                raise ModelFormatError(f"member {info.filename!r} has no readable .npy header "
                                       f"({str(e).splitlines()[0] if str(e) else 'ValueError'})") from None
        total += math.prod(shape) * dtype.itemsize
    return total


def array_fields(data):
    """(container, key, field path, ndim) of every weight array the model dict ``data`` holds, in file order;
    fields that are absent or of the wrong type are skipped (the loaders name them)."""
    if not isinstance(data, dict):
        return
    if "embedding" in data:
        yield data, "embedding", "embedding", 2
    pos = data.get("positions")
    if isinstance(pos, dict) and "table" in pos:
        yield pos, "table", "positions.table", 2
    layers = data.get("layers")
    for l, layer in enumerate(layers if isinstance(layers, list) else []):
        heads = layer.get("heads") if isinstance(layer, dict) else None
        for h, head in enumerate(heads if isinstance(heads, list) else []):
            if not isinstance(head, dict):
                continue
            for k in ("query", "key", "value"):
                if k in head:
                    yield head, k, field_path(["layers", l, "heads", h, k]), 2
            phi = head.get("phi")
            if isinstance(phi, dict) and "values" in phi:
                yield phi, "values", field_path(["layers", l, "heads", h, "phi", "values"]), 1
        mlp = layer.get("mlp") if isinstance(layer, dict) else None
        if isinstance(mlp, dict):
            for k, nd in (("A", 2), ("b", 1), ("B", 2)):
                if k in mlp:
                    yield mlp, k, field_path(["layers", l, "mlp", k]), nd
    if "unembedding" in data:
        yield data, "unembedding", "unembedding", 2


def _float64(x, where: str) -> float:
    """The float64 equal to the exact number ``x`` (as the JSON format reads it), else :class:`NotFloat64Error`."""
    try:
        q = to_fraction(repr(x) if isinstance(x, float) else x)  # a JSON float means its decimal text
    except ModelFormatError as e:
        raise ModelFormatError(f"{where}: {e}") from None
    try:
        f = float(q)
    except OverflowError:
        raise NotFloat64Error(f"{where}: {x} is too large for a float64") from None
    if Fraction(f) != q:
        raise NotFloat64Error(f"{where}: {x} is not a float64 value (nearest {f!r}); the .npz format holds only "
                              "exact float64 weights, keep this model in JSON")
    return f


def _array(values, where: str, ndim: int) -> np.ndarray:
    if isinstance(values, np.ndarray) and values.dtype == np.float64:
        a = values
    else:
        if isinstance(values, np.ndarray):
            values = values.tolist()  # Python numbers: each read exactly
        try:
            a = np.array(values, dtype=object)
        except ValueError:
            raise ModelFormatError(f"{where}: rows of different lengths") from None
        if a.ndim != ndim:
            raise ModelFormatError(f"{where} must be a {ndim}-dimensional array of numbers")
        flat = [_float64(x, f"{where}[{i}]") for i, x in enumerate(a.ravel())]
        a = np.array(flat, dtype=np.float64).reshape(a.shape)
    if a.ndim != ndim:
        raise ModelFormatError(f"{where} must be {ndim}-dimensional, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise NotFloat64Error(f"{where}: weights must be finite")
    return a


def write_npz(data: dict, path) -> None:
    """Write the model dict ``data`` (the JSON format's layout; a weight may be a list of exact numbers or a float64
    array) to the archive ``path``.  :class:`NotFloat64Error` if a weight is not a float64 value."""
    if not isinstance(data, dict):  # the rest of the header is checked when the archive is read
        raise ModelFormatError("a model dict must be a dict (the JSON format's layout)")
    fields = list(array_fields(data))
    arrays = {where: _array(c[k], where, ndim) for c, k, where, ndim in fields}
    originals = [c[k] for c, k, _, _ in fields]
    try:  # the header: the dict with references in place of the arrays (restored after)
        for c, k, where, _ in fields:
            c[k] = {"array": where}
        header = json.dumps(data)
    finally:
        for (c, k, _, _), v in zip(fields, originals, strict=True):
            c[k] = v
    from lengthgen_cli.output import write_file

    write_file(path, lambda f: np.savez(f, **{HEADER: np.array(header)}, **arrays), binary=True, what="model file")


def is_npz(path) -> bool:
    """Whether ``path`` is a regular file that starts as a zip archive (how the loaders tell this format from JSON;
    anything else -- a FIFO, which an open would block on, a device, a directory -- is not)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as f:
            return f.read(4) == MAGIC
    except OSError:
        return False


def read_npz(path) -> dict:
    """The model dict of the archive ``path`` with every reference replaced by its float64 array (each a fresh,
    finite array, -0.0 read as 0.0); :class:`ModelFormatError` naming the path for anything malformed."""
    p = require_regular_file(path, "model file", ModelFormatError)
    try:
        with np.load(p, allow_pickle=False) as z:
            size = max(sum(info.file_size for info in z.zip.infolist()), declared_bytes(z.zip))
            if size > MAX_ARCHIVE_BYTES:
                raise ModelFormatError(f"arrays of {size} bytes (as their headers declare) exceed the limit "
                                       f"constructions.limit_transformer.npz.MAX_ARCHIVE_BYTES = {MAX_ARCHIVE_BYTES}")
            names = set(z.files)
            if HEADER not in names:
                raise ModelFormatError(f"no {HEADER!r} array (not a model archive)")
            header = z[HEADER]
            if not isinstance(header, np.ndarray) or header.dtype.kind != "U" or header.shape != ():
                raise ModelFormatError(f"{HEADER!r} must be a unicode string")
            data = json.loads(header.item())
            if not isinstance(data, dict):
                raise ModelFormatError(f"{HEADER!r} must hold one JSON object")
            used = set()
            for container, key, where, ndim in list(array_fields(data)):
                ref = container[key]
                if not (isinstance(ref, dict) and set(ref) == {"array"} and isinstance(ref["array"], str)):
                    raise ModelFormatError(f"{where} must be a reference {{\"array\": NAME}}")
                name = ref["array"]
                if name not in names or name == HEADER:
                    raise ModelFormatError(f"{where}: the archive has no array {name!r}")
                a = z[name]
                if not isinstance(a, np.ndarray):  # a member that is not an .npy file comes back as bytes
                    raise ModelFormatError(f"{where}: {name!r} is not an array")
                if a.dtype != np.float64 or a.ndim != ndim:
                    raise ModelFormatError(f"{where}: array {name!r} must be {ndim}-dimensional float64, got "
                                           f"{a.dtype} of shape {a.shape}")
                if not np.all(np.isfinite(a)):
                    raise ModelFormatError(f"{where}: parameters must be finite")
                container[key] = a.astype(np.float64) + 0.0  # native byte order; -0.0 -> 0.0
                used.add(name)
            unused = names - used - {HEADER}
            if unused:
                raise ModelFormatError(f"arrays {sorted(unused)[:3]} are not referenced by the header")
            return data
    except ModelFormatError as e:
        raise ModelFormatError(f"{p}: {e}") from None
    except (OSError, ValueError, EOFError, KeyError, RecursionError, zipfile.BadZipFile,
            NotImplementedError) as e:  # not a zip, a pickled or corrupt member, a header that is not JSON
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ModelFormatError(f"{p} is not a readable model archive ({msg})") from None


def _dyadic(x: float) -> str:
    a, b = x.as_integer_ratio()
    return str(a) if b == 1 else f"{a}/{b}"


def exact_dict(data: dict) -> dict:
    """The archive's dict with every array spelled as the JSON format's exact strings (what
    :func:`serialize.model_from_dict` reads; the same Fractions as the float64 values)."""
    for container, key, _, _ in list(array_fields(data)):
        a = container[key]
        if isinstance(a, np.ndarray):
            container[key] = [_dyadic(x) for x in a.tolist()] if a.ndim == 1 else \
                [[_dyadic(x) for x in row] for row in a.tolist()]
    return data


def json_to_npz(source, path) -> None:
    """Convert the JSON model file ``source`` to the archive ``path`` (:class:`NotFloat64Error` if a weight is not a
    float64 value; the header's remaining fields are checked when the archive is read)."""
    p = require_regular_file(source, "model file", ModelFormatError)
    try:
        data = json.loads(p.read_text())
    except OSError as e:
        raise ModelFormatError(f"cannot read model file {p}: {e.strerror}") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ModelFormatError(f"{p} is not a JSON model file ({str(e).splitlines()[0]})") from None
    try:
        write_npz(data, path)
    except ModelFormatError as e:
        raise type(e)(f"{p}: {e}") from None


__all__ = ["HEADER", "MAX_ARCHIVE_BYTES", "NotFloat64Error", "array_fields", "declared_bytes", "exact_dict", "is_npz",
           "json_to_npz", "read_npz", "write_npz"]

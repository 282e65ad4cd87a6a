"""A failing input of the GPT-2 certificate as a fixed-length verification problem: an ONNX graph and a VNN-LIB
property that others can check with their own tools.

:mod:`bounds.certify.gpt2_search` answers Izzo et al. Theorem 4.1's question for a concrete pair of one-layer
GPT-2 models (:mod:`bounds.certify.gpt2`: NoPE, a periodic position table, or an absolute table within its R rows),
``max_j |f_j - g_j| <= eps`` at every length (an absolute table: on every input of at most R positions); a ``fails``
verdict is a claim about one input ``BOS x_1 ... x_n``.  This module states that claim in the formats fixed-length
verifiers read (alpha-beta-CROWN, Marabou, NNV: the VNN-COMP benchmark format):

* :func:`graph`: an ONNX graph (built with ``onnx.helper``, opset 17) of the function the package's float64 model
  computes (:mod:`bounds.certify.gpt2`'s docstring: ``ln_1``, attention with scores ``q . k / sqrt(d_head)``, the
  residual, ``ln_2``, the MLP with the model's GELU, ``ln_f``, the linear head), at the last position of an input of
  exactly L = n + 1 positions, for f alone or for the pair (output ``f - g``).  Ops: MatMul, Add, Sub, Mul, Div,
  Sqrt, ReduceMean (LayerNorm written out: ``(x - mean) / sqrt(var + eps) * gamma + beta``), Slice, Reshape,
  Transpose, Softmax, and Erf (``gelu``: ``x (1 + erf(x / sqrt 2)) / 2``) or Tanh (``gelu_new`` /
  ``gelu_pytorch_tanh``: ``x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2``).  No causal mask is needed: with
  one layer the output at the last position uses only the last position's query, whose row of the causal mask
  admits every position, so the graph computes that row alone (keys and values at every position).
* :func:`onehot`: the **input encoding**.  ``X`` has shape ``[1, L, C]`` with C = 1 + |alphabet| classes: class 0
  is the BOS token, class 1 + i the alphabet's i-th token id (the ids the certificate ranges over, in the order of
  ``Gpt2Form.alphabet``); ``X[0, p, c] = 1`` iff position p (0 = BOS) holds class c, else 0.  The graph's first
  op multiplies X by the embedding rows ``wte[[BOS, *alphabet]]``, so on a one-hot X it reads exactly the token
  embeddings.  Flattened in C order (VNN-LIB's ``X_i``): ``i = p * C + c``.
* **The position term.**  A model with a position table gets, right after that MatMul, one Add of a constant
  ``[1, L, d]`` holding the rows it reads at positions p = 0..L - 1 (:meth:`bounds.certify.gpt2.Gpt2Form.
  position_rows`): ``wpe[p mod P]`` for a periodic table of period P (its first P rows; beyond the saved model's R
  rows this is the model the periodic table defines, which is what the certificate states), ``wpe[p]`` for an
  absolute table of R rows, whose graph is refused for L > R (the model is undefined there; the certificate never
  names such an input).  A pair is compared at the lcm of the two periods, as the certificate does; each model
  reading its own table modulo its own period gives the same rows.  NoPE adds nothing (the graph of a NoPE model
  is unchanged).  The input encoding stays the one-hot tokens: the positions are fixed by the length, so the
  property's input box has the same form for every model.
* :func:`vnnlib`: the property, in the VNN-LIB format (declare-const ``X_i`` / ``Y_j`` Real; asserts of ``<=`` /
  ``>=``, a disjunction as ``(or (and ...) ...)``; a verifier answers *sat* when some input in the box satisfies
  every assert).  The box is the point X of the failing token sequence (lower = upper).  For a pair
  (:func:`bounds.certify.gpt2_search.certify_pair`) the output condition is ``Y_j >= eps`` (or ``Y_j <= -eps``, by
  the sign of ``f_j - g_j`` at the witness), j the logit of largest ``|f_j - g_j|``: *sat* confirms
  ``|f_j - g_j| >= eps`` (the certificate's claim is the strict ``> eps``).  For a model against its task
  (:func:`bounds.certify.gpt2_task.certify_task`: the answer y's logit must exceed every competitor j's by more
  than delta) the graph outputs ``Y_j = logit_j - logit_y`` (``answer=y``) and the condition is the disjunction of
  ``Y_j >= -delta`` over the competitors: *sat* is exactly the margin violation ``gap <= delta``.  The export
  refuses an input whose float32 value clears the threshold by less than the float32 tolerance
  (:data:`FLOAT32_TOLERANCE`), so the answer is never decided by rounding.

Precision: the graph's weights are float32 by default (what verifiers read); :func:`graph` with
``dtype=np.float64`` builds the same graph in float64, which the tests evaluate to ~1e-12 of the torch forward (the
check that the op list is the model's function), the float32 one to within :data:`FLOAT32_TOLERANCE`.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
PRODUCER = "lengthgen bounds.certify"
MAX_ONNX_LENGTH = 4096  # positions of an exported input (BOS included): the property declares L * C inputs
#: |float32 graph - float64 model| allowed per output, relative to max(1, |value|) (measured: docs/certify.md)
FLOAT32_TOLERANCE = 1e-4
_DTYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE}


class _Builder:
    """Nodes and initializers of one graph, with fresh names."""

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)
        self.nodes, self.inits, self._n = [], [], 0

    def const(self, name: str, value, dtype=None) -> str:
        arr = np.asarray(value, dtype=self.dtype if dtype is None else dtype)
        self.inits.append(numpy_helper.from_array(arr, name))
        return name

    def ints(self, value) -> str:
        """An int64 constant (shapes, slice bounds)."""
        self._n += 1
        return self.const(f"int64_{self._n}", value, np.int64)

    def op(self, op_type: str, inputs, **attrs) -> str:
        self._n += 1
        out = f"{op_type.lower()}_{self._n}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out


def _layer_norm(b: _Builder, x: str, ln, eps: float, name: str) -> str:
    """``(x - mean x) / sqrt(var x + eps) * gamma + beta`` over the last axis (torch's LayerNorm: biased var)."""
    mu = b.op("ReduceMean", [x], axes=[-1], keepdims=1)
    c = b.op("Sub", [x, mu])
    var = b.op("ReduceMean", [b.op("Mul", [c, c])], axes=[-1], keepdims=1)
    sd = b.op("Sqrt", [b.op("Add", [var, b.const(f"{name}_eps", eps)])])
    z = b.op("Div", [c, sd])
    return b.op("Add", [b.op("Mul", [z, b.const(f"{name}_gamma", ln[0])]), b.const(f"{name}_beta", ln[1])])


def _affine(b: _Builder, x: str, w, bias, name: str) -> str:
    return b.op("Add", [b.op("MatMul", [x, b.const(f"{name}_w", w)]), b.const(f"{name}_b", bias)])


def _gelu(b: _Builder, x: str, kind: str, name: str) -> str:
    half = b.const(f"{name}_half", 0.5)
    one = b.const(f"{name}_one", 1.0)
    if kind == "gelu":
        inner = b.op("Erf", [b.op("Div", [x, b.const(f"{name}_sqrt2", np.sqrt(2.0))])])
    else:  # gelu_new / gelu_pytorch_tanh: GPT-2's tanh approximation
        cube = b.op("Mul", [x, b.op("Mul", [x, x])])
        u = b.op("Add", [x, b.op("Mul", [cube, b.const(f"{name}_a", 0.044715)])])
        inner = b.op("Tanh", [b.op("Mul", [u, b.const(f"{name}_c", np.sqrt(2.0 / np.pi))])])
    return b.op("Mul", [b.op("Mul", [x, half]), b.op("Add", [inner, one])])


def _logits(b: _Builder, form, x: str, length: int, name: str) -> str:
    """The last-position logits of ``form`` on the one-hot input ``x`` ([1, L, C]), shape [1, outputs]."""
    d, H = form.d, form.n_head
    dh = d // H
    emb = b.op("MatMul", [x, b.const(f"{name}_wte", form.wte[[form.bos, *form.alphabet]])])  # [1, L, d]
    rows = form.position_rows(length)  # the position term (module docstring); None: NoPE, nothing added
    if rows is not None:
        emb = b.op("Add", [emb, b.const(f"{name}_wpe", rows[None])])
    z = _layer_norm(b, emb, form.ln1, form.ln_eps, f"{name}_ln1")

    def last(t):  # the last position, [1, 1, d]
        return b.op("Slice", [t, b.ints([length - 1]), b.ints([length]), b.ints([1])])

    def heads(t, rows, perm):  # [1, rows, d] -> the heads' axes, permuted
        return b.op("Transpose", [b.op("Reshape", [t, b.ints([1, rows, H, dh])])], perm=perm)

    w, bias = form.attn_w, form.attn_b
    q = _affine(b, last(z), w[:, :d], bias[:d], f"{name}_q")  # [1, 1, d]
    k = _affine(b, z, w[:, d:2 * d], bias[d:2 * d], f"{name}_k")  # [1, L, d]
    v = _affine(b, z, w[:, 2 * d:], bias[2 * d:], f"{name}_v")
    qh = heads(q, 1, [0, 2, 1, 3])  # [1, H, 1, dh]
    kt = heads(k, length, [0, 2, 3, 1])  # [1, H, dh, L]
    vh = heads(v, length, [0, 2, 1, 3])  # [1, H, L, dh]
    s = b.op("MatMul", [qh, kt])  # [1, H, 1, L]
    if form.scale_attn:
        s = b.op("Div", [s, b.const(f"{name}_sqrt_dh", np.sqrt(float(dh)))])
    a = b.op("MatMul", [b.op("Softmax", [s], axis=-1), vh])  # [1, H, 1, dh]
    a = b.op("Reshape", [b.op("Transpose", [a], perm=[0, 2, 1, 3]), b.ints([1, 1, d])])
    x1 = b.op("Add", [last(emb), _affine(b, a, form.proj_w, form.proj_b, f"{name}_proj")])
    hid = _gelu(b, _affine(b, _layer_norm(b, x1, form.ln2, form.ln_eps, f"{name}_ln2"), form.fc_w, form.fc_b,
                           f"{name}_fc"), form.activation, f"{name}_act")
    x2 = b.op("Add", [x1, _affine(b, hid, form.mproj_w, form.mproj_b, f"{name}_mproj")])
    out = _affine(b, _layer_norm(b, x2, form.lnf, form.ln_eps, f"{name}_lnf"), form.head_w.T, form.head_b,
                  f"{name}_head")
    return b.op("Reshape", [out, b.ints([1, form.head_w.shape[0]])])


def graph(f, length: int, g=None, dtype=np.float32, metadata: dict | None = None,
          answer: int | None = None) -> onnx.ModelProto:
    """The ONNX graph of f's last-position logits (or ``f - g``; or, with ``answer``, ``logit_j - logit_answer``)
    on inputs of ``length`` positions, BOS included: input ``X`` [1, length, C] (:func:`onehot`), output ``Y``
    [1, outputs]; each model's position rows added after the embedding (module docstring; ValueError for an
    absolute table shorter than ``length``)."""
    if not 2 <= length <= MAX_ONNX_LENGTH:
        raise ValueError(f"an exported input has 2..MAX_ONNX_LENGTH = {MAX_ONNX_LENGTH} positions (BOS included), "
                         f"not {length}")
    if g is not None and (g.bos, g.alphabet, g.head_w.shape[0]) != (f.bos, f.alphabet, f.head_w.shape[0]):
        raise ValueError("f and g must share the BOS token, the alphabet and the number of outputs")
    b = _Builder(dtype)
    y = _logits(b, f, "X", length, "f")
    if g is not None:
        y = b.op("Sub", [y, _logits(b, g, "X", length, "g")])
    if answer is not None:
        if g is not None or not 0 <= answer < f.head_w.shape[0]:
            raise ValueError(f"answer {answer} must be an output of f (0..{f.head_w.shape[0] - 1}), without g")
        y = b.op("Sub", [y, b.op("Slice", [y, b.ints([answer]), b.ints([answer + 1]), b.ints([1])])])
    b.nodes[-1].output[0] = "Y"
    kind = _DTYPES[b.dtype]
    C = 1 + len(f.alphabet)
    title = "gpt2_pair_difference" if g is not None else "gpt2_logits" if answer is None else "gpt2_logit_gaps"
    gr = helper.make_graph(b.nodes, title,
                           [helper.make_tensor_value_info("X", kind, [1, length, C])],
                           [helper.make_tensor_value_info("Y", kind, [1, f.head_w.shape[0]])], b.inits)
    model = helper.make_model(gr, producer_name=PRODUCER, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # readable by onnx >= 1.10 and the onnxruntime versions verifiers ship
    helper.set_model_props(model, {k: str(v) for k, v in (metadata or {}).items()})
    onnx.checker.check_model(model, full_check=True)
    return model


def onehot(form, model_ids, dtype=np.float32) -> np.ndarray:
    """The input ``X`` [1, L, C] of the token ids ``model_ids`` (BOS first, as the model consumes them)."""
    classes = [form.bos, *form.alphabet]
    ids = list(model_ids)
    if not ids or ids[0] != form.bos or any(t not in classes[1:] for t in ids[1:]):
        raise ValueError(f"token ids must be BOS {form.bos} followed by ids of the alphabet {list(form.alphabet)}")
    x = np.zeros((1, len(ids), len(classes)), dtype=dtype)
    x[0, np.arange(len(ids)), [classes.index(t) for t in ids]] = 1
    return x


def evaluate(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    """``Y`` of the graph on ``X = x`` by onnx's reference evaluator (numpy), as a vector."""
    from onnx.reference import ReferenceEvaluator

    return np.asarray(ReferenceEvaluator(model).run(None, {"X": x})[0]).reshape(-1)


def _num(x: float) -> str:
    return np.format_float_positional(float(x), unique=True, trim="0")


def vnnlib(x: np.ndarray, outputs: int, condition, comments=()) -> str:
    """The VNN-LIB property: ``X`` fixed to the point ``x`` (flattened in C order) and the output condition, a
    disjunction of ``(j, op, c)`` meaning ``Y_j op c`` (op ``>=`` or ``<=``); *sat* iff the point's output satisfies
    one of them."""
    condition = list(condition)
    if not condition or any(op not in ("<=", ">=") or not 0 <= j < outputs or not np.isfinite(c)
                            for j, op, c in condition):
        raise ValueError("the output condition needs terms (j, '<=' or '>=', finite c) with 0 <= j < outputs")
    flat = np.asarray(x, dtype=np.float64).reshape(-1)
    lines = [f"; {c}" for c in comments]
    lines += [f"(declare-const X_{i} Real)" for i in range(flat.size)]
    lines += [f"(declare-const Y_{i} Real)" for i in range(outputs)]
    lines.append("; the input box: the one point X of the token sequence (lower bound = upper bound)")
    for i, v in enumerate(flat):
        lines += [f"(assert (<= X_{i} {_num(v)}))", f"(assert (>= X_{i} {_num(v)}))"]
    lines.append("; the output condition whose satisfaction is the counterexample")
    terms = [f"({op} Y_{j} {_num(c)})" for j, op, c in condition]
    if len(terms) == 1:
        lines.append(f"(assert {terms[0]})")
    else:
        lines.append("(assert (or " + " ".join(f"(and {t})" for t in terms) + "))")
    return "\n".join(lines) + "\n"

"""huang2024 eq. (2), the content attention logit ``a_ij = y_j^T K^T Q y_i`` (key j, query i), checked against
the package's exact evaluator (:func:`constructions.limit_transformer.exact_forward`) by two means that share
no logit code with it:

* a hand-computed one-layer instance whose ``K^T Q = e_a e_b^T`` is not symmetric, so the transposed form
  ``y_i^T K^T Q y_j`` gives other weights and outputs (worked out in the test's comments);
* an independent re-implementation of eq. (2) with plain ``Fraction`` sums over the entries of the model's
  ``K`` and ``Q`` (not ``Head.bilinear``), applied to the cached layer inputs ``y^(l-1)`` of random models with
  non-symmetric ``K^T Q``; the resulting weights (through the package's softmax of App. D.2, which this file
  does not test) must equal the evaluator's cached weights.  Each instance also serves as its own negative
  control: the transposed logits must give weights different from the evaluator's, so the instance can tell
  the two readings apart.
"""

import random
from fractions import Fraction

from constructions.limit_transformer import (
    Head,
    Layer,
    LimitTransformer,
    LocalPhi,
    PeriodicPositions,
    exact_forward,
)
from constructions.limit_transformer.cache import run_with_cache
from constructions.limit_transformer.precision import exact_weights
from verify.claims import checks

F = Fraction


def _matrix(rows: int, cols: int, entries: dict) -> list:
    m = [[F(0)] * cols for _ in range(rows)]
    for (r, c), v in entries.items():
        m[r][c] = F(v)
    return m


def eq2_logit(head: Head, y_key, y_query) -> Fraction:
    """Eq. (2) as printed: ``y_j^T K^T Q y_i = sum_t (sum_r K[t, r] y_j[r]) (sum_s Q[t, s] y_i[s])``."""
    K, Q = head.key, head.query
    d = len(y_key)
    return sum((sum((K[t][r] * y_key[r] for r in range(d)), F(0)) * sum((Q[t][s] * y_query[s] for s in range(d)), F(0))
                for t in range(K.shape[0])), F(0))


def _weights_from_logits(model: LimitTransformer, head: Head, y, i: int, transposed: bool) -> list:
    """Query i's weights over keys 0..i from eq. (2) (or its transpose) plus phi(j, i), via the App. D.2 softmax."""
    n = len(y)
    logits = [(eq2_logit(head, y[i], y[j]) if transposed else eq2_logit(head, y[j], y[i]))
              + (head.phi.value(j + 1, i + 1) if head.phi is not None else 0) for j in range(i + 1)]
    return exact_weights(logits, n, model.precision_bits, model.precision)


# --------------------------------------------------------------------------------------- by hand
def _hand_model() -> LimitTransformer:
    """d = 4 (0: $, 1: a, 2: b, 3: output); one head with K = e_1^T, Q = e_2^T, so a_ij = [x_j = a][x_i = b]
    (K^T Q = e_1 e_2^T, not symmetric), V copies [x_j = a] into coordinate 3, U reads coordinate 3.
    Izzo precision, p = 1: a logit gap of 1 flushes once n >= 2 (hardmax)."""
    E = [[F(int(c == t)) for c in range(4)] for t in range(3)]
    head = Head(_matrix(1, 4, {(0, 2): 1}), _matrix(1, 4, {(0, 1): 1}), _matrix(4, 4, {(3, 1): 1}))
    return LimitTransformer(("a", "b"), E, (Layer((head,)),), _matrix(1, 4, {(0, 3): 1}),
                            precision_bits=1, precision="izzo")


@checks("huang2024:eq2")
def test_eq2_hand_computed_instance():
    model = _hand_model()
    # "ab": query 2 (b) has logits [0, 1, 0] over keys $, a, b -> all weight on key 1 (a): output 1.
    #       (transposed, a_ij = [x_i = a][x_j = b] is 0 for query b: uniform over 3 keys, output 1/3.)
    _, cache = run_with_cache(model, "ab", exact=True)
    assert list(cache.attention[0][0][2]) == [0, 1, 0]
    assert list(exact_forward(model, "ab")[:, 0]) == [0, F(1, 2), 1]  # query 1 (a): all logits 0, mean of $, a
    # "ba": query 2 (a) has logits [0, 0, 0] -> uniform over $, b, a: output 1/3.
    #       (transposed: key 1 (b) alone has logit 1 -> output 0.)
    _, cache = run_with_cache(model, "ba", exact=True)
    assert list(cache.attention[0][0][2]) == [F(1, 3)] * 3
    assert list(exact_forward(model, "ba")[:, 0]) == [0, 0, F(1, 3)]
    # the independent eq. (2) agrees with the hand values, and its transpose is rejected on this instance
    y = cache.residual[0]
    assert _weights_from_logits(model, model.layers[0].heads[0], y, 2, transposed=False) == [F(1, 3)] * 3
    assert _weights_from_logits(model, model.layers[0].heads[0], y, 2, transposed=True) == [0, 1, 0]


# ------------------------------------------------------------------------------------ random models
def _random_model(rng: random.Random) -> LimitTransformer:
    """Two layers, d = 6 (0: $, 1-2: a/b, 3-4: position class mod 2, 5: scratch), r = 2 random rational keys
    and queries on the token and position coordinates (K^T Q is almost surely not symmetric), a local phi,
    and values writing into the scratch coordinate so that the second layer reads non-one-hot inputs."""
    d = 6

    def rnd():
        return F(rng.randint(-3, 3), rng.choice([1, 2, 3]))

    def head(read):
        K = _matrix(2, d, {(t, c): rnd() for t in range(2) for c in read})
        Q = _matrix(2, d, {(t, c): rnd() for t in range(2) for c in read})
        return Head(Q, K, _matrix(d, d, {(5, 1): rnd(), (5, 5): F(1, 2)}), LocalPhi((rnd(), rnd())))

    E = [[F(int(c == t)) for c in range(d)] for t in range(3)]
    table = [[F(int(c == 3 + r)) for c in range(d)] for r in range(2)]
    layers = (Layer((head((0, 1, 2, 3, 4)),)), Layer((head((1, 2, 3, 5)), head((0, 2, 4, 5)))))
    return LimitTransformer(("a", "b"), E, layers, _matrix(1, d, {(0, 5): 1}), PeriodicPositions(table),
                            precision_bits=6, precision="huang")


@checks("huang2024:eq2", "huang2024:eq6")
def test_eq2_independent_logits_match_evaluator():
    """Every head's cached weights equal those of eq. (2) re-implemented here (+ phi of eq. (6)); on every
    model some query's weights differ under the transposed form, so a transposition cannot pass.
    (``huang`` precision: every weight is rational, so no input falls outside the exact evaluator; the izzo
    hardmax regime is covered by the hand-computed instance.)"""
    rng = random.Random(2024)
    checked = told_apart = 0
    for _ in range(6):
        model = _random_model(rng)
        transposition_shows = False
        for _ in range(3):
            word = "".join(rng.choice("ab") for _ in range(rng.randint(3, 7)))
            _, cache = run_with_cache(model, word, exact=True)
            for l, layer in enumerate(model.layers):
                y = cache.residual[l]
                for h, head in enumerate(layer.heads):
                    for i in range(len(y)):
                        got = list(cache.attention[l][h][i, : i + 1])
                        assert got == _weights_from_logits(model, head, y, i, transposed=False), (l, h, i, word)
                        checked += 1
                        transposition_shows |= _weights_from_logits(model, head, y, i, transposed=True) != got
        told_apart += transposition_shows
    assert checked >= 200
    assert told_apart == 6, f"only {told_apart} of 6 models tell eq. (2) from its transpose"

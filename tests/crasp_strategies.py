"""Hypothesis strategies of the C-RASP tests: near-members of the benchmark languages (the public program and
word strategies are in :mod:`constructions.strategies`)."""

from __future__ import annotations

from hypothesis import strategies as st


# ------------------------------------------------------------------ near-members of the benchmark
def _dyck(draw, max_depth: int, max_len: int) -> str:
    steps = draw(st.lists(st.booleans(), max_size=max_len // 2))
    out, depth = [], 0
    for up in steps:
        if depth == 0 or (up and depth < max_depth):
            out.append("a")
            depth += 1
        else:
            out.append("b")
            depth -= 1
    return "".join(out) + "b" * depth


def _rand(draw, alphabet: str, lo: int, hi: int) -> str:
    return draw(st.text(alphabet=st.sampled_from(alphabet), min_size=lo, max_size=hi))


def _maj(bits: str) -> str | None:
    o, z = bits.count("1"), bits.count("0")
    return None if o == z else ("1" if o > z else "0")


@st.composite
def member_like(draw, name: str, max_len: int = 2000) -> str:
    """A word that is often (not always) in benchmark ``name``'s language, of length <= ``max_len``."""
    k = draw(st.integers(1, max(1, max_len // 4)))
    if name in ("dyck1", "d2", "d3", "d4", "d12"):
        depth = {"dyck1": 10**9, "d2": 2, "d3": 3, "d4": 4, "d12": 12}[name]
        w = _dyck(draw, depth, max_len - 2) or "ab"
    elif name == "anbn":
        w = "a" * k + "b" * k
    elif name == "anbncn":
        k = min(k, max_len // 3)
        w = "a" * k + "b" * k + "c" * k
    elif name == "tomita1":
        w = "1" * k
    elif name == "tomita2":
        w = "10" * k
    elif name == "tomita4":
        w = "".join(draw(st.lists(st.sampled_from(["1", "01", "001"]), min_size=1, max_size=max_len // 3)))
    elif name == "tomita7":
        parts = draw(st.lists(st.integers(0, max_len // 4), min_size=4, max_size=4))
        w = "".join(s * n for s, n in zip("0101", parts, strict=True)) or "0"
    elif name == "aa_star":
        w = "aa" * k
    elif name == "aaaa_star":
        w = "aaaa" * min(k, max_len // 4)
    elif name == "abab_star":
        w = "abab" * min(k, max_len // 4)
    elif name == "a_b_c_d_e":
        parts = draw(st.lists(st.integers(1, max_len // 5), min_size=5, max_size=5))
        w = "".join(s * n for s, n in zip("abcde", parts, strict=True))
    elif name == "ab_d_bc":
        w = _rand(draw, "ab", 0, max_len // 2) + "d" + _rand(draw, "bc", 0, max_len // 2 - 1)
    elif name == "binary_majority":
        x = _rand(draw, "01", 1, max_len - 2)
        w = x + "#" + (_maj(x) or "1")
    elif name == "binary_majority_interleave":
        m = draw(st.integers(1, (max_len - 4) // 3))
        x = _rand(draw, "01", 3 * m, 3 * m)
        w = x + "#" + "".join(_maj(x[r::3]) or "0" for r in range(3))
    elif name.startswith("majority_letters"):
        letters = name.split(":")[1] if ":" in name else "abc"
        x = _rand(draw, letters, 1, max_len - 2)
        counts = {c: x.count(c) for c in letters}
        w = x + "#" + max(counts, key=lambda c: counts[c])
    elif name.startswith("sort"):
        nums = name.split(":")[1] if ":" in name else "123"
        x = "".join(draw(st.permutations(nums))[: draw(st.integers(1, len(nums)))])
        w = x + "#" + "".join(sorted(x))
    elif name.startswith("copy_unique"):
        letters = name.split(":")[1] if ":" in name else "abc"
        x = "".join(draw(st.permutations(letters))[: draw(st.integers(1, len(letters)))])
        w = "#" + x + "#" + x
    else:
        alpha = {"majority": "ab", "pt_aba": "ab", "pt_bca": "abc", "pt_ab_not_ba": "ab",
                 "induction_next_a": "abc", "induction_argmax_a": "abc"}[name]
        w = _rand(draw, alpha, 1, max_len)
    w = w[:max_len] or w[:1]
    # 0-2 random edits over the program's alphabet
    alphabet = sorted(set(w) | set(_edit_alphabet(name)))
    for _ in range(draw(st.integers(0, 2))):
        if not w:
            break
        pos = draw(st.integers(0, len(w) - 1))
        kind = draw(st.sampled_from(["sub", "del", "ins"]))
        sym = draw(st.sampled_from(alphabet))
        if kind == "sub":
            w = w[:pos] + sym + w[pos + 1:]
        elif kind == "del" and len(w) > 1:
            w = w[:pos] + w[pos + 1:]
        elif kind == "ins" and len(w) < max_len:
            w = w[:pos] + sym + w[pos:]
    return w


def _edit_alphabet(name: str) -> str:
    if ":" in name:
        return name.split(":")[1] + "#"
    from constructions.crasp.programs import BENCHMARKS

    return "".join(BENCHMARKS[name].build().alphabet)

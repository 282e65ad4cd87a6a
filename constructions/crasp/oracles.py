"""Independent membership oracles for the benchmark languages (reference sections 3.6-3.9, 5.2-5.4).

Each oracle is a direct Python definition of the language (regular expressions, scans, or the task's
input/output relation), written from the language's definition and **not** from the C-RASP program:
nothing here imports the AST.  They decide membership of nonempty words (Definition 8 has no value on
the empty word).  Algorithmic tasks are phrased as transcript languages ``input SEP output`` (see
docs/crasp.md, "Tasks as languages").
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["ORACLES"]

_TOMITA1 = re.compile(r"1*")
_TOMITA2 = re.compile(r"(10)*")
_TOMITA7 = re.compile(r"0*1*0*1*")
_AA_STAR = re.compile(r"(aa)*")
_AAAA_STAR = re.compile(r"(aaaa)*")
_ABAB_STAR = re.compile(r"(abab)*")
_A_B_C_D_E = re.compile(r"aa*bb*cc*dd*ee*")
_AB_D_BC = re.compile(r"[ab]*d[bc]*")
_ZERO_TWO_STAR = re.compile(r"[012]*02*")
_ADDITION = re.compile(r"(0|1[01]*)\+(0|1[01]*)=(0|1[01]*)")


def majority(w: str) -> bool:
    """MAJORITY over {a,b}: at least as many a's as b's (C.1.1)."""
    return w.count("a") >= w.count("b")


def dyck1(w: str) -> bool:
    """DYCK-1 over a = '(' and b = ')'."""
    depth = 0
    for c in w:
        depth += 1 if c == "a" else -1
        if depth < 0:
            return False
    return depth == 0


def anbn(w: str) -> bool:
    n = len(w) // 2
    return len(w) % 2 == 0 and w == "a" * n + "b" * n


def anbncn(w: str) -> bool:
    n = len(w) // 3
    return len(w) % 3 == 0 and w == "a" * n + "b" * n + "c" * n


def subsequence(word: str):
    def has(w: str) -> bool:
        it = iter(w)
        return all(c in it for c in word)

    has.__doc__ = f"{word!r} is a (scattered) subsequence"
    return has


def pt_ab_not_ba(w: str) -> bool:
    return subsequence("ab")(w) and not subsequence("ba")(w)


def tomita1(w: str) -> bool:
    return _TOMITA1.fullmatch(w) is not None


def tomita2(w: str) -> bool:
    return _TOMITA2.fullmatch(w) is not None


def tomita3(w: str) -> bool:
    """No odd-length block of 1's followed (later) by an odd-length block of 0's."""
    runs = [(m.group(0)[0], len(m.group(0))) for m in re.finditer(r"0+|1+", w)]
    seen_odd_ones = False
    for sym, length in runs:
        if sym == "1" and length % 2 == 1:
            seen_odd_ones = True
        if sym == "0" and length % 2 == 1 and seen_odd_ones:
            return False
    return True


def tomita4(w: str) -> bool:
    return "000" not in w


def tomita5(w: str) -> bool:
    return w.count("0") % 2 == 0 and w.count("1") % 2 == 0


def tomita6(w: str) -> bool:
    return (w.count("0") - w.count("1")) % 3 == 0


def tomita7(w: str) -> bool:
    return _TOMITA7.fullmatch(w) is not None


def dyck_depth(n: int):
    def d(w: str) -> bool:
        depth = 0
        for c in w:
            depth += 1 if c == "a" else -1
            if not 0 <= depth <= n:
                return False
        return depth == 0

    d.__doc__ = f"D_{n} = (a D_{n - 1} b)*: Dyck words of depth <= {n}"
    return d


def _dn_recursive(n: int):
    """D_n by its grammar D_0 = {eps}, D_n = (a D_{n-1} b)* (used to cross-check dyck_depth)."""
    pat = ""
    for _ in range(n):
        pat = f"(?:a{pat}b)*"
    return re.compile(pat) if pat else re.compile("")


def aa_star(w: str) -> bool:
    return _AA_STAR.fullmatch(w) is not None


def aaaa_star(w: str) -> bool:
    return _AAAA_STAR.fullmatch(w) is not None


def abab_star(w: str) -> bool:
    return _ABAB_STAR.fullmatch(w) is not None


def a_b_c_d_e(w: str) -> bool:
    return _A_B_C_D_E.fullmatch(w) is not None


def ab_d_bc(w: str) -> bool:
    return _AB_D_BC.fullmatch(w) is not None


def zero_two_star(w: str) -> bool:
    """{0,1,2}* 0 2* (benchmark language #17)."""
    return _ZERO_TWO_STAR.fullmatch(w) is not None


def parity(w: str) -> bool:
    """PARITY over {0,1}: an even number of 1's."""
    return w.count("1") % 2 == 0


# ------------------------------------------------------------------------------- induction head (10)
def _successor_counts(w: str) -> Counter:
    """#{k < N : x_k = x_N, x_{k+1} = a} for each a (the numerator of eq. (10); 1-based k)."""
    last = w[-1]
    return Counter(w[k + 1] for k in range(len(w) - 1) if w[k] == last)


def induction_support(sym: str):
    def f(w: str) -> bool:
        return _successor_counts(w)[sym] > 0

    f.__doc__ = f"f(x)_{sym} > 0 in eq. (10) (some earlier occurrence of x_N was followed by {sym!r})"
    return f


def induction_argmax(sym: str, alphabet: str):
    def f(w: str) -> bool:
        c = _successor_counts(w)
        return all(c[sym] >= c[t] for t in alphabet)

    f.__doc__ = f"{sym!r} maximizes f(x) in eq. (10) (ties, including 0/0, accept every maximizer)"
    return f


# ------------------------------------------------------------------------------ algorithmic tasks
def _split_one(w: str, sep: str = "#"):
    if w.count(sep) != 1:
        return None
    return w.split(sep)


def binary_majority(w: str) -> bool:
    """``x#y``: x a nonempty bit string without a tie, y its majority bit."""
    parts = _split_one(w)
    if parts is None:
        return False
    x, y = parts
    ones, zeros = x.count("1"), x.count("0")
    if ones == zeros or len(y) != 1:
        return False
    return y == ("1" if ones > zeros else "0")


def binary_majority_interleave(w: str) -> bool:
    """``x#y1y2y3``: x interleaves three bit strings of equal length m >= 1, y_k the majority of the k-th."""
    parts = _split_one(w)
    if parts is None:
        return False
    x, y = parts
    if len(x) == 0 or len(x) % 3 != 0 or len(y) != 3:
        return False
    for k in range(3):
        s = x[k::3]
        ones, zeros = s.count("1"), s.count("0")
        if ones == zeros or y[k] != ("1" if ones > zeros else "0"):
            return False
    return True


def majority_letters(letters: str):
    def f(w: str) -> bool:
        parts = _split_one(w)
        if parts is None:
            return False
        x, y = parts
        if not x or len(y) != 1:
            return False
        c = Counter(x)
        top = max(c.values())
        modes = [a for a in letters if c[a] == top]
        return len(modes) == 1 and y == modes[0]

    f.__doc__ = "``x#y``: y is the unique most frequent letter of the nonempty x"
    return f


def sort_task(w: str) -> bool:
    """``x#y``: x nonempty with distinct numbers (digits), y = x sorted ascending."""
    parts = _split_one(w)
    if parts is None:
        return False
    x, y = parts
    return len(x) >= 1 and len(set(x)) == len(x) and y == "".join(sorted(x))


def copy_unique(w: str) -> bool:
    """``#x#x``: x nonempty with distinct symbols (the leading # stands for the start of sequence)."""
    if not w.startswith("#") or w.count("#") != 2:
        return False
    x, y = w[1:].split("#")
    return len(x) >= 1 and len(set(x)) == len(x) and y == x


def copy_repeat(w: str) -> bool:
    """``x#x`` over {a,b}: x nonempty, symbols may repeat."""
    parts = _split_one(w)
    return parts is not None and len(parts[0]) >= 1 and parts[0] == parts[1]


def addition(w: str) -> bool:
    """``a+b=c`` in binary without leading zeros, c = a + b."""
    m = _ADDITION.fullmatch(w)
    return m is not None and int(m.group(1), 2) + int(m.group(2), 2) == int(m.group(3), 2)


ORACLES = {
    "majority": majority,
    "dyck1": dyck1,
    "anbn": anbn,
    "anbncn": anbncn,
    "pt_aba": subsequence("aba"),
    "pt_bca": subsequence("bca"),
    "pt_ab_not_ba": pt_ab_not_ba,
    "tomita1": tomita1,
    "tomita2": tomita2,
    "tomita3": tomita3,
    "tomita4": tomita4,
    "tomita5": tomita5,
    "tomita6": tomita6,
    "tomita7": tomita7,
    "d2": dyck_depth(2),
    "d3": dyck_depth(3),
    "d4": dyck_depth(4),
    "d12": dyck_depth(12),
    "aa_star": aa_star,
    "aaaa_star": aaaa_star,
    "abab_star": abab_star,
    "a_b_c_d_e": a_b_c_d_e,
    "ab_d_bc": ab_d_bc,
    "zero_two_star": zero_two_star,
    "parity": parity,
    "induction_next_a": induction_support("a"),
    "induction_argmax_a": induction_argmax("a", "abc"),
    "binary_majority": binary_majority,
    "binary_majority_interleave": binary_majority_interleave,
    "majority_letters": majority_letters("abc"),
    "sort": sort_task,
    "copy_unique": copy_unique,
    "copy_repeat": copy_repeat,
    "addition": addition,
}

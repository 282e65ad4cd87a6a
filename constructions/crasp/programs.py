"""The benchmark C-RASP programs (Huang et al. Theorem 10, App. C.1-C.2, E.1.2, E.2.2) as a registry.

Every program is built with the DSL of :mod:`constructions.crasp.ast` and checked (tests, ``python -m
constructions.crasp check NAME``) against an independent oracle from :mod:`constructions.crasp.oracles`
on every word up to its exhaustive length.  ``BENCHMARKS[name]`` is a :class:`Benchmark`;
``NO_PROGRAM[name]`` records the tasks for which the paper proves (or reports) that no program exists.

Algorithmic tasks are phrased as *transcript languages*: the words ``input # output`` in which the
output is the task's correct answer (reference section 5.2); a program accepts exactly the correct
transcripts, and its per-position predicates (e.g. ``NEXT_t``) are the next-token predictions.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from constructions.crasp.ast import (
    AND,
    OR,
    BoolExpr,
    Program,
    Q,
    count,
    eq,
    exists,
    leq,
    lt,
    phi,
    prev,
    program,
)
from constructions.crasp.errors import UnknownProgramError
from constructions.crasp.oracles import ORACLES

__all__ = ["Benchmark", "NoProgram", "BENCHMARKS", "NO_PROGRAM", "get", "exhaustive_length", "subsequence_defs"]


def exhaustive_length(alphabet_size: int) -> int:
    """The exhaustive verification length: 12 for binary alphabets, 8 for 3-5 symbols."""
    return 12 if alphabet_size <= 2 else 8


# ------------------------------------------------------------------------------------- Theorem 10
def majority() -> Program:
    """MAJORITY over {a,b}: #a >= #b (Theorem 10 (1), App. C.1.1)."""
    ca, cb = count(Q("a")), count(Q("b"))
    return program("ab", [("C_a", ca), ("C_b", cb), ("M", cb <= ca)])


def dyck1() -> Program:
    """DYCK-1 with a = '(' and b = ')' (Theorem 10 (2))."""
    ca, cb = count(Q("a")), count(Q("b"))
    bad = lt(ca, cb)
    cbad = count(bad)
    return program("ab", [("C_a", ca), ("C_b", cb), ("Bad", bad), ("C_Bad", cbad),
                          ("D", AND(leq(cbad, 0), eq(ca, cb)))])


def anbn() -> Program:
    """a^n b^n (one reading of Theorem 10 (3); UNCERTAIN which language the paper names)."""
    ca, cb = count(Q("a")), count(Q("b"))
    bad = Q("a") & (1 <= cb)
    cbad = count(bad)
    return program("ab", [("C_a", ca), ("C_b", cb), ("Bad", bad), ("C_Bad", cbad), ("L", AND(leq(cbad, 0), eq(ca, cb)))])


def anbncn() -> Program:
    """a^n b^n c^n (the most likely reading of Theorem 10 (3); reference section 3.6)."""
    ca, cb, cc = count(Q("a")), count(Q("b")), count(Q("c"))
    cbc = count(Q("b") | Q("c"))
    bad = (Q("a") & (1 <= cbc)) | (Q("b") & (1 <= cc))
    cbad = count(bad)
    return program("abc", [("C_a", ca), ("C_b", cb), ("C_c", cc), ("C_bc", cbc), ("Bad", bad), ("C_Bad", cbad),
                           ("L", AND(leq(cbad, 0), eq(ca, cb), eq(cb, cc)))])


# --------------------------------------------------------------------------- piecewise testable
def subsequence_defs(word: str, prefix: str = "S") -> list[tuple[str, BoolExpr]]:
    """Definitions S_1..S_k with S_m(i) iff word[:m] is a subsequence of w_1..w_i (App. C.1.5).

    ``S_1 := E[j<=i] Q_{a1}``; ``Prev_m := 2 <= #[j<=i] S_{m-1}`` (equals S_{m-1}(i-1) because S_{m-1}
    is monotone in i); ``S_m := E[j<=i] (Q_{am} & Prev_m)``.  No positional relations.
    """
    defs: list[tuple[str, BoolExpr]] = []
    s = exists(Q(word[0]))
    defs.append((f"{prefix}_1", s))
    for m in range(2, len(word) + 1):
        p = leq(2, count(s))
        defs.append((f"{prefix}Prev_{m}", p))
        s = exists(Q(word[m - 1]) & p)
        defs.append((f"{prefix}_{m}", s))
    return defs


def pt_subsequence(word: str, alphabet: str) -> Callable[[], Program]:
    def build() -> Program:
        return program(alphabet, subsequence_defs(word))

    build.__doc__ = f"Sigma* {' Sigma* '.join(word)} Sigma* (piecewise testable, App. C.1.5)"
    return build


def pt_ab_not_ba() -> Program:
    """Contains ab but not ba as a subsequence: a Boolean combination of basic PT languages."""
    d1 = subsequence_defs("ab", "A")
    d2 = subsequence_defs("ba", "B")
    return program("ab", [*d1, *d2, ("L", d1[-1][1] & ~d2[-1][1])])


# ------------------------------------------------------------------------------- regular languages
def tomita1() -> Program:
    """1* : no 0 so far."""
    return program("01", [("C_0", count(Q("0"))), ("L", leq(count(Q("0")), 0))])


def tomita2() -> Program:
    """(10)*: each 0 restores #1 = #0, each 1 makes #1 = #0 + 1; accept with #1 = #0 (E.1.2)."""
    c0, c1 = count(Q("0")), count(Q("1"))
    good = (Q("0") & eq(c1, c0)) | (Q("1") & eq(c1, c0 + 1))
    cbad = count(~good)
    return program("01", [("C_0", c0), ("C_1", c1), ("Good", good), ("C_Bad", cbad), ("L", leq(cbad, 0) & eq(c1, c0))])


def tomita4() -> Program:
    """No 000 factor; C-RASP[local] with offsets 1 and 2 (E.1.2)."""
    bad = Q("0") & prev(Q("0"), 1) & prev(Q("0"), 2)
    cbad = count(bad)
    return program("01", [("Bad", bad), ("C_Bad", cbad), ("L", leq(cbad, 0))])


def tomita7() -> Program:
    """0*1*0*1* = no subsequence 1010 (piecewise testable, so plain C-RASP; E.1.2)."""
    d = subsequence_defs("1010")
    return program("01", [*d, ("L", ~d[-1][1])])


def tomita7_local() -> Program:
    """0*1*0*1* in C-RASP[local]: at most one factor 10 (the paper's 2-layer alternative)."""
    f10 = Q("0") & prev(Q("1"))
    c = count(f10)
    return program("01", [("F10", f10), ("C_F10", c), ("L", leq(c, 1))])


def dyck_depth(n: int) -> Callable[[], Program]:
    def build() -> Program:
        depth = count(Q("a")) - count(Q("b"))
        bad = lt(depth, 0) | lt(n, depth)
        cbad = count(bad)
        return program("ab", [("Depth", depth), ("Bad", bad), ("C_Bad", cbad), ("L", leq(cbad, 0) & eq(depth, 0))])

    build.__doc__ = f"D_{n}: depth #a - #b in [0, {n}] on every prefix and 0 at the end (E.1.2)."
    return build


def mod_star(k: int) -> Callable[[], Program]:
    def build() -> Program:
        cb = count(Q("b"))
        return program("ab", [("C_b", cb), ("L", leq(cb, 0) & phi(k, {0}))])

    build.__doc__ = f"(a^{k})*: only a's and length = 0 mod {k}; C-RASP[periodic] (App. C.2.3)."
    return build


def abab_star() -> Program:
    """(abab)*: a at odd, b at even positions, length = 0 mod 4; C-RASP[periodic]."""
    even = phi(2, {0})
    bad = (Q("a") & even) | (Q("b") & ~even)
    cbad = count(bad)
    return program("ab", [("Even", even), ("Bad", bad), ("C_Bad", cbad), ("L", leq(cbad, 0) & phi(4, {0}))])


def a_b_c_d_e() -> Program:
    """aa*bb*cc*dd*ee*: every letter present; no letter after a later one (E.1.2)."""
    letters = "abcde"
    defs = []
    bads = []
    for k, x in enumerate(letters[:-1]):
        later = count(OR(*(Q(y) for y in letters[k + 1:])))
        defs.append((f"Later_{x}", later))
        bads.append(Q(x) & (1 <= later))
    bad = OR(*bads)
    cbad = count(bad)
    defs += [("Bad", bad), ("C_Bad", cbad), ("L", AND(leq(cbad, 0), *(exists(Q(x)) for x in letters)))]
    return program(letters, defs)


def ab_d_bc() -> Program:
    """{a,b}* d {b,c}*: exactly one d, a only before it, c only after it (E.1.2)."""
    cd = count(Q("d"))
    bad = (Q("a") & (1 <= cd)) | (Q("c") & leq(cd, 0))
    cbad = count(bad)
    return program("abcd", [("C_d", cd), ("Bad", bad), ("C_Bad", cbad), ("L", leq(cbad, 0) & eq(cd, 1))])


# --------------------------------------------------------------------------- induction head (10)
def _sym_name(s: str) -> str:
    return s if (s.isascii() and s.isalnum()) else {"#": "sep"}.get(s, f"u{ord(s):x}")


def _induction_defs(alphabet: str):
    """Pre_s(i) (predecessor is s), B_st(i) (count of bigram st so far), E_st(i) (B_st >= 1)."""
    defs = []
    pre = {}
    for s in alphabet:
        pre[s] = prev(Q(s))
        defs.append((f"Pre_{_sym_name(s)}", pre[s]))
    bigram = {}
    for s in alphabet:
        for t in alphabet:
            bigram[s, t] = count(pre[s] & Q(t))
            defs.append((f"B_{_sym_name(s)}_{_sym_name(t)}", bigram[s, t]))
    return defs, pre, bigram


def induction_support(target: str, alphabet: str = "abc") -> Callable[[], Program]:
    def build() -> Program:
        defs, _pre, big = _induction_defs(alphabet)
        nxt = OR(*(Q(s) & (1 <= big[s, target]) for s in alphabet))
        return program(alphabet, [*defs, (f"NEXT_{target}", nxt)])

    build.__doc__ = f"f(x)_{target} > 0 in eq. (10): NEXT := OR_s (Q_s & E[j<=i](Pre_s & Q_{target})) (App. C.2.2)."
    return build


def induction_argmax(target: str, alphabet: str = "abc") -> Callable[[], Program]:
    def build() -> Program:
        defs, _pre, big = _induction_defs(alphabet)
        nxt = OR(*(Q(s) & AND(*(leq(big[s, t], big[s, target]) for t in alphabet if t != target)) for s in alphabet))
        return program(alphabet, [*defs, (f"NEXT_{target}", nxt)])

    build.__doc__ = f"{target} in argmax f(x) of eq. (10) (App. C.2.1): B_s{target} >= B_st for all t."
    return build


# ------------------------------------------------------------------------------ algorithmic tasks
def _transcript_parts(sep: str = "#"):
    """H = #sep so far; In(P) = P before the first sep; Out = non-sep symbols after it."""
    h = count(Q(sep))
    before = leq(h, 0)
    after = leq(1, h)
    return h, before, after


def binary_majority() -> Program:
    """``x#y`` with y the majority bit of x (no ties); plain C-RASP (E.2.2: one count)."""
    h, before, after = _transcript_parts()
    ones, zeros = count(Q("1") & before), count(Q("0") & before)
    out = count(after & ~Q("#"))
    ok = (Q("1") & lt(zeros, ones)) | (Q("0") & lt(ones, zeros))
    return program("01#", [("H", h), ("Ones", ones), ("Zeros", zeros), ("Out", out),
                           ("L", AND(eq(h, 1), eq(out, 1), ok))])


def binary_majority_interleave() -> Program:
    """``x#y1y2y3``: x interleaves x^1 x^2 x^3 (position r mod 3), y_k their majority bits;
    C-RASP[periodic] with one count per residue class mod 3 (E.2.2)."""
    h, before, after = _transcript_parts()
    res = {1: phi(3, {1}), 2: phi(3, {2}), 3: phi(3, {0})}  # x^k sits at positions = k mod 3
    defs = [("H", h)]
    ones, zeros = {}, {}
    for k, r in res.items():
        ones[k] = count(Q("1") & before & r)
        zeros[k] = count(Q("0") & before & r)
        defs += [(f"Ones_{k}", ones[k]), (f"Zeros_{k}", zeros[k])]
    # the separator is at 3m+1, y1 at 3m+2 (= 2 mod 3), y2 at 3m+3 (= 0), y3 at 3m+4 (= 1)
    out_slot = {1: res[2], 2: res[3], 3: res[1]}
    correct = OR(*(out_slot[k] & ((Q("1") & lt(zeros[k], ones[k])) | (Q("0") & lt(ones[k], zeros[k]))) for k in res))
    outpos = after & ~Q("#")
    bad = (outpos & ~correct) | (Q("#") & ~res[1])
    out = count(outpos)
    cbad = count(bad)
    defs += [("Correct", correct), ("Bad", bad), ("Out", out), ("C_Bad", cbad),
             ("L", AND(eq(h, 1), eq(out, 3), leq(cbad, 0)))]
    return program("01#", defs)


def majority_letters(letters: str = "abc") -> Callable[[], Program]:
    def build() -> Program:
        h, before, after = _transcript_parts()
        cnt = {x: count(Q(x) & before) for x in letters}
        out = count(after & ~Q("#"))
        ok = OR(*(Q(x) & AND(*(lt(cnt[y], cnt[x]) for y in letters if y != x)) for x in letters))
        defs = [("H", h), *((f"In_{x}", cnt[x]) for x in letters), ("Out", out), ("L", AND(eq(h, 1), eq(out, 1), ok))]
        return program(letters + "#", defs)

    build.__doc__ = f"``x#y`` over {{{','.join(letters)}}}: y is the unique most frequent letter of x (plain C-RASP)."
    return build


def sort_task(numbers: str = "123") -> Callable[[], Program]:
    def build() -> Program:
        h, before, after = _transcript_parts()
        defs = [("H", h)]
        ins, outs = {}, {}
        for v in numbers:
            ins[v] = count(Q(v) & before)
            outs[v] = count(Q(v) & after)
            defs += [(f"In_{v}", ins[v]), (f"Out_{v}", outs[v])]
        # output must increase: an output v is bad if an earlier output is >= v
        bad = OR(*(Q(v) & after & leq(2, count(after & OR(*(Q(u) for u in numbers if u >= v)))) for v in numbers))
        cbad = count(bad)
        total = count(before & ~Q("#"))
        conds = [eq(h, 1), leq(1, total), leq(cbad, 0)]
        conds += [leq(ins[v], 1) for v in numbers] + [eq(ins[v], outs[v]) for v in numbers]
        defs += [("Bad", bad), ("C_Bad", cbad), ("Total", total), ("L", AND(*conds))]
        return program(numbers + "#", defs)

    build.__doc__ = (f"``x#y`` over numbers {numbers}: x distinct, y = sorted(x); plain C-RASP (E.2.2: the largest "
                     "output so far is the last one, so 'smallest input above the last output' needs no positions).")
    return build


def copy_unique(letters: str = "abc") -> Callable[[], Program]:
    def build() -> Program:
        alphabet = letters + "#"
        h = count(Q("#"))
        defs: list = [("H", h)]
        ind, _pre, big = _induction_defs(alphabet)
        defs += ind
        nxt = {t: OR(*(Q(s) & (1 <= big[s, t]) for s in alphabet)) for t in letters}
        defs += [(f"NEXT_{t}", nxt[t]) for t in letters]
        outpos = leq(2, h) & ~Q("#")
        correct = OR(*(Q(t) & prev(nxt[t]) for t in letters))
        bad = outpos & ~correct
        cbad = count(bad)
        ins = {t: count(Q(t) & leq(h, 1)) for t in letters}
        before_first = count(leq(h, 0))
        total_in = count(leq(h, 1) & ~Q("#"))
        out = count(outpos)
        defs += [("Correct", correct), ("Bad", bad), ("C_Bad", cbad), ("Lead", before_first), ("In", total_in), ("Out", out)]
        defs += [(f"In_{t}", ins[t]) for t in letters]
        conds = [eq(h, 2), leq(before_first, 0), leq(1, total_in), eq(out, total_in), leq(cbad, 0)]
        conds += [leq(ins[t], 1) for t in letters]
        defs.append(("L", AND(*conds)))
        return program(alphabet, defs)

    build.__doc__ = ("``#x#x`` (the leading # stands for the start of sequence): x with distinct symbols; every output "
                     "symbol is the induction head's NEXT at the previous position (C-RASP[local], App. C.2.2).")
    return build


# ------------------------------------------------------------------------------------------ registry
@dataclass(frozen=True)
class Benchmark:
    """A benchmark program with its oracle, the paper's row and the claim it certifies."""

    name: str
    title: str
    build: Callable[[], Program]
    claim: str
    paper_row: str = ""  # the row of the paper's tables / Figure 1 it certifies
    note: str = ""
    max_len: int | None = None

    def program(self) -> Program:
        p = self.build()
        return p.with_meta(self.name, self.build.__doc__ or self.title)

    @property
    def oracle(self) -> Callable[[str], bool]:
        return ORACLES[self.name]

    @property
    def exhaustive_len(self) -> int:
        return self.max_len or exhaustive_length(len(self.build().alphabet))


_B = [
    Benchmark("majority", "MAJORITY", majority, "huang2024:thm10", "Theorem 10 (1)"),
    Benchmark("dyck1", "DYCK-1", dyck1, "huang2024:thm10", "Theorem 10 (2); Dyck-1 (counter languages)"),
    Benchmark("anbncn", "a^n b^n c^n", anbncn, "huang2024:thm10", "Theorem 10 (3) (UNCERTAIN reading)"),
    Benchmark("anbn", "a^n b^n", anbn, "huang2024:thm10", "Theorem 10 (3) (alternative reading)"),
    Benchmark("pt_aba", "Sigma* a Sigma* b Sigma* a Sigma*", pt_subsequence("aba", "ab"), "huang2024:lem11.piecewise", "Lemma 11 (4), App. C.1.5"),
    Benchmark("pt_bca", "Sigma* b Sigma* c Sigma* a Sigma*", pt_subsequence("bca", "abc"), "huang2024:lem11.piecewise", "Lemma 11 (4), App. C.1.5"),
    Benchmark("pt_ab_not_ba", "contains ab, not ba (as subsequences)", pt_ab_not_ba, "huang2024:lem11.piecewise", "Lemma 11 (4), App. C.1.5"),
    Benchmark("tomita1", "Tomita 1: 1*", tomita1, "huang2024:tab2", "Table 2 #1"),
    Benchmark("tomita2", "Tomita 2: (10)*", tomita2, "huang2024:tab2", "Table 2 #2"),
    Benchmark("tomita4", "Tomita 4: no 000", tomita4, "huang2024:tab2", "Table 2 #4"),
    Benchmark("tomita7", "Tomita 7: 0*1*0*1*", tomita7, "huang2024:tab2", "Table 2 #7"),
    Benchmark("d2", "D_2", dyck_depth(2), "huang2024:tab2", "Table 2 #8"),
    Benchmark("d3", "D_3", dyck_depth(3), "huang2024:tab2", "Table 2 #9"),
    Benchmark("d4", "D_4", dyck_depth(4), "huang2024:tab2", "Table 2 #10"),
    Benchmark("d12", "D_12", dyck_depth(12), "huang2024:tab2", "Table 2 #11"),
    Benchmark("aa_star", "(aa)*", mod_star(2), "huang2024:tab2", "Table 2 #12"),
    Benchmark("aaaa_star", "(aaaa)*", mod_star(4), "huang2024:tab2", "Table 2 #13"),
    Benchmark("abab_star", "(abab)*", abab_star, "huang2024:tab2", "Table 2 #14"),
    Benchmark("a_b_c_d_e", "aa*bb*cc*dd*ee*", a_b_c_d_e, "huang2024:tab2", "Table 2 #15"),
    Benchmark("ab_d_bc", "{a,b}*d{b,c}*", ab_d_bc, "huang2024:tab2", "Table 2 #16"),
    Benchmark("induction_next_a", "induction head, f(x)_a > 0", induction_support("a"), "huang2024:eq10", "eq. (10), App. C.2.2"),
    Benchmark("induction_argmax_a", "induction head, a in argmax f(x)", induction_argmax("a"), "huang2024:eq10", "eq. (10), App. C.2.1"),
    Benchmark("binary_majority", "Binary Majority", binary_majority, "huang2024:tab3", "Table 3 / Figure 1"),
    Benchmark("binary_majority_interleave", "Binary Majority Interleave", binary_majority_interleave, "huang2024:tab3",
              "Table 3 / Figure 1", max_len=11),
    Benchmark("majority_letters", "Majority", majority_letters("abc"), "huang2024:tab3", "Table 3 / Figure 1"),
    Benchmark("sort", "Sort", sort_task("123"), "huang2024:tab3", "Table 3 / Figure 1"),
    Benchmark("copy_unique", "Copy (unique)", copy_unique("abc"), "huang2024:tab3", "Table 3 / Figure 1"),
]
BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in _B}
REGULAR_13 = ("tomita1", "tomita2", "tomita4", "tomita7", "d2", "d3", "d4", "d12", "aa_star", "aaaa_star",
              "abab_star", "a_b_c_d_e", "ab_d_bc")
EXTRA_PROGRAMS = {"tomita7_local": tomita7_local}


@dataclass(frozen=True)
class NoProgram:
    """A benchmark task without a program: the paper's non-expressibility argument and its claim key."""

    name: str
    title: str
    alphabet: str
    claim: str
    argument: str
    fragment: str  # the strongest fragment the paper says cannot express it


NO_PROGRAM: dict[str, NoProgram] = {
    n.name: n
    for n in [
        NoProgram("tomita3", "Tomita 3", "01", "huang2024:tab2.tomita3",
                  "not in C-RASP (outputs on 1 0^n become constant, Lemma 37/38) nor in C-RASP[periodic,local] "
                  "(block relabelling; Krebs 2008 Thms 6.10/6.12, Tesson-Therien 2002 on DA)", "C-RASP[periodic,local]"),
        NoProgram("tomita5", "Tomita 5", "01", "huang2024:tab2.tomita5",
                  "even #0 and even #1 = PARITY restricted to even length; Lemma 41 argument", "C-RASP[periodic,local]"),
        NoProgram("tomita6", "Tomita 6", "01", "huang2024:tab2.tomita6",
                  "#1 = 0 mod 3 is not expressible (as PARITY) and reduces to Tomita 6 by a length-uniform morphism "
                  "(Lemma 42)", "C-RASP[periodic,local]"),
        NoProgram("parity", "PARITY", "01", "huang2024:lem41",
                  "Lemma 41: Lemma 40 block encoding turns a program for PARITY into a C-RASP program for (cc)*, "
                  "contradicting Lemma 38", "C-RASP[periodic,local]"),
        NoProgram("zero_two_star", "{0,1,2}*02*", "012", "huang2024:lem36",
                  "equals Sigma* b e* up to renaming (0->b, 1->a, 2->e); Lemma 36 via Lemma 35 (Krebs 2008 Lemma 6.11)",
                  "C-RASP[periodic,local]"),
        NoProgram("copy_repeat", "Copy (repeat)", "ab#", "huang2024:tab3.copy-repeat",
                  "Corollary 13: copying with repeats needs Omega(N) bits of communication, more than the O(log N) of "
                  "Theorem 12", "C-RASP[periodic,local]"),
        NoProgram("addition", "Addition", "01+=", "huang2024:tab3.addition",
                  "at least as hard as copying (add 0), so Corollary 13 applies", "C-RASP[periodic,local]"),
    ]
}


EXAMPLES_DIR = os.path.join(os.path.dirname(__file__), "examples")


def export_examples(directory: str = EXAMPLES_DIR) -> list[str]:
    """Write every benchmark program as ``directory/NAME.crasp`` (canonical text with a header)."""
    from constructions.crasp.syntax import format_program
    from lengthgen_cli.output import write_text

    paths = []
    for name, b in BENCHMARKS.items():
        path = os.path.join(directory, f"{name}.crasp")
        write_text(path, format_program(b.program(), header=True), within=directory, make_folder=True)
        paths.append(path)
    return paths


def get(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise UnknownProgramError(
            f"unknown program {name!r}; known: {', '.join(sorted(BENCHMARKS))}"
            + (f" ({name} has no program: {NO_PROGRAM[name].argument})" if name in NO_PROGRAM else "")
        ) from None

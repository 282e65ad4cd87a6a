"""The fooling-set half of Huang et al. Corollary 13 / 20 and Remark 21 for the tasks it names besides copying.

A protocol in which Alice sends a message about her half and Bob then answers needs at least as many distinct
messages as there are Alice halves that some Bob half tells apart.  For each task, with Bob's half fixed or
chosen per pair:

* addition with y = 0 (Corollary 20): Bob must write x + 0 = x, so every x in {0,1}^(N-1) needs its own message;
* multiplication by 1 (Remark 21): x * 1 = x, the same;
* unbounded-depth Dyck-2 (Remark 21): Alice holds N - 1 opening brackets over {(, [}; for u != u' Bob's half
  close(u) (the mirrored closing brackets) completes u to a member of Dyck-2 and u' to a non-member.

:func:`distinct_required` counts the Alice halves that need distinct messages (exhaustively); with
2^(N-1) of them a protocol needs >= N - 1 bits, while Theorem 12's protocol for Periodic and Local models sends
O(log N) bits -- the corollaries' argument, whose second half rests on Theorem 12 (a gap for exact activations).
"""

from __future__ import annotations

import itertools


def binary_add(x: str, y: str) -> str:
    """x + y for binary strings, most significant bit first, as a string of len(x) + 1 bits."""
    return format(int(x, 2) + int(y, 2), f"0{len(x) + 1}b")


def binary_mul(x: str, y: str) -> str:
    return format(int(x, 2) * int(y, 2), f"0{len(x) + len(y)}b")


def dyck2(word: str) -> bool:
    stack = []
    for ch in word:
        if ch in "([":
            stack.append(ch)
        elif not stack or {"(": ")", "[": "]"}[stack.pop()] != ch:
            return False
    return not stack


def close(u: str) -> str:
    return "".join({"(": ")", "[": "]"}[ch] for ch in reversed(u))


def distinct_required(task: str, N: int) -> int:
    """The number of Alice halves (length N - 1) that need pairwise distinct messages for ``task`` ("addition",
    "multiplication", "dyck2"; "dyck1", one bracket type, is the control: a single opening prefix)."""
    if task in ("addition", "multiplication"):
        op, bob = (binary_add, "0" * (N - 1)) if task == "addition" else (binary_mul, "1")
        return len({op("".join(x), bob) for x in itertools.product("01", repeat=N - 1)})
    if task in ("dyck2", "dyck1"):
        us = ["".join(u) for u in itertools.product("([" if task == "dyck2" else "(", repeat=N - 1)]
        # a fooling set: every pair is told apart by Bob's half close(u)
        if all(dyck2(u + close(u)) and not dyck2(v + close(u)) for u in us for v in us if u != v):
            return len(us)
        return 0
    raise ValueError(f"unknown task {task!r}")

"""``python -m verify.report [--json] [--paper KEY]``: claim coverage with the tests behind each claim."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from verify.claims import PAPERS, STATUSES, load_all

ROOT = Path(__file__).resolve().parent.parent


class _Collector:
    """Pytest plugin that records, for every collected test, the claim keys on its ``claims`` marker."""

    def __init__(self) -> None:
        self.by_claim: dict[str, list[str]] = defaultdict(list)

    def pytest_collection_modifyitems(self, items):
        for item in items:
            for mark in item.iter_markers("claims"):
                for key in mark.args:
                    self.by_claim[key].append(item.nodeid)


def collect_tests() -> dict[str, list[str]]:
    """Map claim key -> test node ids, by running pytest's collection (no test is executed)."""
    import contextlib
    import io

    import pytest

    collector = _Collector()
    args = ["--collect-only", "-q", "-m", "", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
            "-c", str(ROOT / "pyproject.toml")]
    with contextlib.redirect_stdout(io.StringIO()):
        rc = pytest.main(args, plugins=[collector])
    if rc not in (0, 5):
        raise RuntimeError(f"pytest collection failed with exit code {rc}; run `pytest --collect-only` to see why")
    return {k: sorted(set(v)) for k, v in collector.by_claim.items()}


def build_report(paper: str | None = None) -> list[dict]:
    tests = collect_tests()
    rows = []
    for key, c in sorted(load_all().items()):
        if paper and c.paper != paper:
            continue
        rows.append({"claim": key, "statement": c.statement, "status": c.status, "summary": c.summary,
                     "evidence": c.evidence, "tests": tests.get(key, [])})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m verify.report", description=__doc__)
    ap.add_argument("--json", action="store_true", help="print a JSON list of claim objects")
    ap.add_argument("--paper", choices=PAPERS, help="only this paper's claims")
    args = ap.parse_args(argv)
    rows = build_report(args.paper)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        print(f"{r['claim']:<34} {r['status']:<21} {len(r['tests']):>3} tests  {r['summary']}")
    print()
    per_paper: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        per_paper[r["claim"].split(":")[0]][r["status"]] += 1
    for p in sorted(per_paper):
        cnt = per_paper[p]
        parts = ", ".join(f"{s} {cnt[s]}" for s in STATUSES if cnt[s])
        print(f"{p}: {sum(cnt.values())} claims ({parts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

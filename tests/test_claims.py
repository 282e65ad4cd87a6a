"""The claim registry: key validation, coverage of the papers, and that every checked status has a test."""

import subprocess
import sys
import textwrap

import pytest

from verify.claims import STATUSES, ClaimError, checks, get, load_all, register
from verify.report import build_report, inconsistencies, markdown


def test_register_rejects_malformed_keys_statuses_and_duplicates():
    with pytest.raises(ClaimError, match="malformed"):
        register("Thm 4.1", "x", "y")
    with pytest.raises(ClaimError, match="unknown paper"):
        register("smith2020:thm1", "x", "y")
    with pytest.raises(ClaimError, match="status"):
        register("izzo2025:zz-test-only", "x", "y", status="proved")
    some = next(iter(load_all()))
    with pytest.raises(ClaimError, match="twice"):
        register(some, "x", "y")
    with pytest.raises(ClaimError, match="unknown claim"):
        get("izzo2025:no-such-claim")
    with pytest.raises(ClaimError):
        checks()


def test_every_paper_has_registered_claims_with_valid_statuses():
    reg = load_all()
    for paper in ("ahuja2024", "izzo2025", "golowich2025", "huang2024"):
        assert any(k.startswith(paper + ":") for k in reg), paper
    assert all(c.status in STATUSES for c in reg.values())
    for key in ("izzo2025:thm4.1", "izzo2025:sec3.2-hardmax", "izzo2025:def-gamma"):
        assert key in reg


@pytest.fixture(scope="module")
def report_rows():
    return build_report()


def test_checked_statuses_are_backed_by_tests_and_the_check_can_fail(report_rows):
    assert inconsistencies(report_rows) == []
    assert inconsistencies([{"claim": "izzo2025:x", "status": "verified", "tests": []}])  # negative control


def test_claim_map_in_docs_is_current(report_rows):
    """docs/claims.md is regenerated with `python -m verify.report --markdown > docs/claims.md`."""
    from verify.report import ROOT

    text = markdown(report_rows)
    assert "| `izzo2025:thm4.1` |" in text
    assert (ROOT / "docs" / "claims.md").read_text() == text + "\n", "regenerate docs/claims.md"


def test_unknown_claim_key_fails_collection(tmp_path):
    bad = tmp_path / "test_bad.py"
    bad.write_text(textwrap.dedent("""
        from verify.claims import checks

        @checks("izzo2025:no-such-claim")
        def test_x():
            pass
    """))
    from verify.report import ROOT

    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider",
                        "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"), str(bad)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode != 0 and "unknown claim key" in (r.stdout + r.stderr)

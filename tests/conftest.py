"""Fixtures shared by the unit tests."""

import shutil
from pathlib import Path

import pytest

WITNESS_RUN = Path(__file__).resolve().parents[1] / "docs" / "results" / "izzo2025-trained-witness.json"


@pytest.fixture
def witness_runs(tmp_path):
    """A run folder (``bounds.certify --runs``) holding one record: the committed trained witness run (ModP p = 2,
    periodic positions)."""
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(WITNESS_RUN, folder / "r.json")
    return folder

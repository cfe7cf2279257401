"""The kill loop (tests/kill_loop.py) in the suite: 25 kills over every target.

Five a target: one at each of its phases (four on S3), the rest after spread delays.
"""

from __future__ import annotations

import pytest

from tests.kill_loop import TARGETS, soak


def test_killed_again_and_again_every_target_ends_as_an_uninterrupted_run() -> None:
    pytest.importorskip("moto")
    pytest.importorskip("deltalake")
    pytest.importorskip("pyiceberg")
    tally = soak(kills=25)
    assert tally.kills >= 20, tally.lines()
    aimed = {"listing", "batch mid-write", "ledger entry", "marker", "table commit"}
    assert set(tally.phases) == aimed, tally.lines()
    assert set(tally.per_target) == set(TARGETS)
    assert tally.compared > 0 and tally.faults > 0, tally.lines()
    assert (tally.lost, tally.twice) == (0, 0), (tally.lines(), tally.per_target)

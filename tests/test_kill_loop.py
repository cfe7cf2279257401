"""The kill loop (tests/kill_loop.py) in the suite: at least 20 kills over every target."""

from __future__ import annotations

import pytest

from tests.kill_loop import TARGETS, soak


def test_killed_again_and_again_every_target_ends_as_an_uninterrupted_run() -> None:
    pytest.importorskip("moto")
    pytest.importorskip("deltalake")
    pytest.importorskip("pyiceberg")
    tally = soak(kills=20)
    assert tally.kills >= 20, tally.lines()
    assert set(tally.per_target) == set(TARGETS)
    assert tally.compared > 0 and tally.faults > 0, tally.lines()
    assert (tally.lost, tally.twice) == (0, 0), (tally.lines(), tally.per_target)

"""Shared fixtures: the vendored WPT data, and running a test on both engine paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from urlnorm import native

DATA = Path(__file__).parent / "data"


def load_wpt(name: str) -> list[dict[str, Any]]:
    """The test objects of a vendored WPT JSON file (comment strings dropped)."""
    with open(DATA / "wpt" / name, encoding="utf-8") as fh:
        return [case for case in json.load(fh) if isinstance(case, dict)]


@pytest.fixture(params=["kernel", "python"])
def engine_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test on the native kernel and on the pure-Python path (the core per value)."""
    if request.param == "kernel" and not native.available():
        pytest.skip("the kernel is not built")
    if request.param == "python":
        monkeypatch.setattr(native.extension, "KERNEL", None)
    return str(request.param)

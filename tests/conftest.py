"""Shared fixtures: the vendored WPT data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"


def load_wpt(name: str) -> list[dict[str, Any]]:
    """The test objects of a vendored WPT JSON file (comment strings dropped)."""
    with open(DATA / "wpt" / name, encoding="utf-8") as fh:
        return [case for case in json.load(fh) if isinstance(case, dict)]

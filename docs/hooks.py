"""MkDocs hooks: the reference pages are made from urlnorm's registries as the site builds."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import reference
from mkdocs.structure.files import File, Files


def on_files(files: Files, config: Any) -> Files:
    """Add each reference page, made now."""
    for path, make in reference.PAGES.items():
        files.append(File.generated(config, path, content=make()))
    return files

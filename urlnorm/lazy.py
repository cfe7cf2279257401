"""A module loaded on its first use, for the imports a front-end needs only when it runs.

Registering the ``url`` namespace must not cost the time pyarrow takes to import (a fifth of
a second) when the rows may never reach the kernel; the names are resolved on first use.
The import system's own module lock makes the first use from two threads safe.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for the module ``name`` until an attribute is asked of it.

    >>> json = LazyModule("json")
    >>> json.dumps([1])
    '[1]'
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        # Only names not yet asked for reach here: each is kept on first use, so the kernel's
        # per-batch code pays a plain attribute lookup, not an import-system call.
        module: ModuleType = importlib.import_module(self._name)
        value = getattr(module, attribute)
        setattr(self, attribute, value)
        return value

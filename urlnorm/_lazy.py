"""Modules loaded on first use, so that ``import urlnorm`` stays quick.

pyarrow (and numpy behind it) costs about a tenth of a second to import; a command that
never touches an Arrow array (``urlnorm --version``, ``urlnorm explain``) need not pay it.
The standard library's :class:`importlib.util.LazyLoader` defers the module's execution to
its first attribute access.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """``name``, imported now if it already is, else loaded when first used."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module

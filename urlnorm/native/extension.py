"""The native kernel (``urlnorm/_native``), loaded once: the core's compiled twin.

``URLNORM_NO_EXTENSIONS=1`` turns the kernel off (the pure-Python engine runs instead), as
yarl and aiohttp do.
"""

from __future__ import annotations

import os
from types import ModuleType


def _load() -> ModuleType | None:
    if os.environ.get("URLNORM_NO_EXTENSIONS"):
        return None
    try:
        from urlnorm import _urlnorm
    except ImportError:
        return None
    return _urlnorm  # type: ignore[no-any-return]


KERNEL = _load()


def available() -> bool:
    """Whether the native kernel is in use."""
    return KERNEL is not None


def loaded() -> ModuleType:
    """The kernel, for code that runs only when it is in use."""
    assert KERNEL is not None
    return KERNEL

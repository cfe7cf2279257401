"""The native kernel (``urlnorm/_native``), loaded once: the core's compiled twin.

``URLNORM_NO_EXTENSIONS=1`` turns the kernel off (the pure-Python engine runs instead), as
yarl and aiohttp do. Where the kernel was not turned off but is missing (the install had no C
compiler) or fails to load, every column function still works, 50 to 100 times slower: the
process is told once, with a :class:`KernelMissingWarning`, and :func:`status` says why.
"""

from __future__ import annotations

import importlib
import os
import warnings
from dataclasses import dataclass
from types import ModuleType

MODULE = "urlnorm._urlnorm"


class KernelMissingWarning(UserWarning):
    """The C kernel was expected but is not in use: urlnorm runs its pure-Python path.

    Filter it (``warnings.simplefilter("ignore", KernelMissingWarning)``) where the slow path
    is known and wanted.
    """


@dataclass(frozen=True)
class Status:
    """Which engine runs the column functions, and why.

    ``state`` is ``kernel`` (the C kernel), ``disabled`` (``URLNORM_NO_EXTENSIONS`` is set),
    ``not-built`` (the install compiled no kernel) or ``failed`` (it is there but did not
    load); ``reason`` says more for the last three.
    """

    state: str
    reason: str = ""

    @property
    def kernel(self) -> bool:
        """Whether the C kernel is in use."""
        return self.state == "kernel"

    def describe(self) -> str:
        """One line for people (``urlnorm --version``).

        >>> Status("disabled", "URLNORM_NO_EXTENSIONS is set").describe()
        'pure-Python path, disabled: URLNORM_NO_EXTENSIONS is set'
        """
        if self.kernel:
            return "C kernel"
        return f"pure-Python path, {self.state}: {self.reason}"


def _load() -> tuple[ModuleType | None, Status]:
    if os.environ.get("URLNORM_NO_EXTENSIONS"):
        return None, Status("disabled", "URLNORM_NO_EXTENSIONS is set")
    try:
        kernel = importlib.import_module(MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != MODULE:
            return None, Status("failed", str(exc))
        return None, Status("not-built", "no compiled kernel was installed (no C compiler?)")
    except ImportError as exc:
        return None, Status("failed", str(exc).splitlines()[0] if str(exc) else repr(exc))
    return kernel, Status("kernel")


KERNEL, STATUS = _load()
if STATUS.state in ("not-built", "failed"):
    warnings.warn(
        f"urlnorm runs its pure-Python path, 50-100x slower: {STATUS.reason}. "
        "See urlnorm.native.status(); set URLNORM_NO_EXTENSIONS=1 to choose it knowingly.",
        KernelMissingWarning,
        stacklevel=2,
    )


def available() -> bool:
    """Whether the native kernel is in use."""
    return KERNEL is not None


def status() -> Status:
    """Which engine runs the column functions, and why (see :class:`Status`)."""
    return STATUS


def loaded() -> ModuleType:
    """The kernel, for code that runs only when it is in use."""
    assert KERNEL is not None
    return KERNEL

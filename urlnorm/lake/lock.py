"""One writer at a time into a dataset: a second run waits (locally) or refuses (object store).

Two runs that stage, append to or publish the same dataset at once would delete each other's
files. Locally the lock is the kernel's (``flock`` on a file beside the dataset): a run
killed even by SIGKILL lets go of it, and a second run waits, saying so in one line. An
object store has no lock, so a run leaves a lease object (``_urlnorm/lock``: who holds it and
until when), renews it a batch at a time, and a second run refuses while the lease lasts. A
rerun of the same command takes the lease over at once, since it resumes the work of the
holder, which was killed; another command waits for the lease to run out (or for the object
to be deleted by hand).

Delta and Iceberg tables need none of this: each commit is atomic and their own protocols
settle concurrent writers.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from urlnorm.choices import InputError
from urlnorm.lake import storage

LEASE_SECONDS = 3600
LEASE = "_urlnorm/lock"


@contextmanager
def held(location: str, options: Mapping[str, str], run: str) -> Iterator[None]:
    """The dataset at ``location`` for this run (``run``: the command's identity) alone."""
    if storage.is_remote(location):
        lease = _lease(location, options, run)
        try:
            yield
        finally:
            storage.remove([lease], options)
        return
    with _flocked(location):
        yield


def renew(location: str, options: Mapping[str, str], run: str) -> None:
    """Extend an object-store lease (after each batch), so a long run keeps it."""
    if storage.is_remote(location):
        _put_lease(storage.join(location, LEASE), options, run)


def lock_file(location: str) -> Path:
    """The file whose ``flock`` a local dataset's writer holds (beside the dataset)."""
    path = Path(location.rstrip("/"))
    return path.with_name(f".{path.name}.urlnorm-lock")


@contextmanager
def _flocked(location: str) -> Iterator[None]:
    path = lock_file(location)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _acquired(path, location)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        path.unlink(missing_ok=True)
        os.close(fd)


def _acquired(path: Path, location: str) -> int:
    """A descriptor of ``path`` holding its lock; waits (saying so once) while another does.

    The file is removed when its holder lets go, so a lock taken on a file that has since
    been replaced is let go and taken again on the new one.
    """
    said = False
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not said:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                print(
                    f"urlnorm: another run (pid {holder}) is writing {location}; waiting for it",
                    file=sys.stderr,
                )
                said = True
            fcntl.flock(fd, fcntl.LOCK_EX)
        if _same_file(fd, path):
            return fd
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == path.stat().st_ino
    except FileNotFoundError:
        return False


def _lease(location: str, options: Mapping[str, str], run: str) -> str:
    """Take the lease of a dataset on an object store, or refuse while another run holds it."""
    lease = storage.join(location, LEASE)
    if storage.exists(lease, options):
        holder = _holder(lease, options)
        if holder.get("run") != run and float(str(holder.get("until", 0))) > time.time():
            raise InputError(
                f"cannot write {location}: another run (host {holder.get('host')}, pid "
                f"{holder.get('pid')}) is writing it; if that run is gone, delete {lease}"
            )
    token = _put_lease(lease, options, run)
    if _holder(lease, options).get("token") != token:
        raise InputError(f"cannot write {location}: another run took it at the same moment")
    return lease


def _put_lease(lease: str, options: Mapping[str, str], run: str) -> str:
    token = os.urandom(8).hex()
    now = time.time()
    holder = {
        "token": token,
        "run": run,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "until": now + LEASE_SECONDS,
    }
    storage.put(lease, json.dumps(holder).encode(), options)
    return token


def _holder(lease: str, options: Mapping[str, str]) -> dict[str, object]:
    try:
        found = json.loads(storage.get(lease, options))
    except (ValueError, InputError):
        return {}
    return found if isinstance(found, dict) else {}

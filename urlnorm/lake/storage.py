"""Object stores: which locations are remote, their options, and the few calls urlnorm makes.

Polars reads and writes the data itself, through its own object-store client, with the
``storage_options`` given here (and the standard environment variables, which it reads on its
own). urlnorm needs a store only for what Polars does not do: list the files of a prefix, read
a line-format file's bytes, and put, find and remove the ``_SUCCESS`` marker and the run
ledger. On a store those calls go through Arrow's file systems (``pyarrow.fs``), configured
from the same options, so one ``--storage-option`` reaches both clients; on local disk they
are the operating system's, and a local run never loads Arrow.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from urlnorm.choices import InputError

if TYPE_CHECKING:
    import pyarrow.fs as pafs

# The URL schemes of the object stores Polars reads (s3a is Hadoop's name for S3).
REMOTE_SCHEMES = ("s3", "s3a", "gs", "gcs", "az", "azure", "abfs", "abfss", "hf")
# The marker a writer puts last in a complete dataset (the Hadoop and Spark convention).
MARKER = "_SUCCESS"
# Options of Polars' object-store client (object_store's configuration keys, with or without
# their store's prefix) that Arrow's S3 file system takes under other names.
S3_OPTIONS = {
    "access_key": ("aws_access_key_id", "access_key_id", "AWS_ACCESS_KEY_ID"),
    "secret_key": ("aws_secret_access_key", "secret_access_key", "AWS_SECRET_ACCESS_KEY"),
    "session_token": ("aws_session_token", "session_token", "token", "AWS_SESSION_TOKEN"),
    "region": ("aws_region", "region", "aws_default_region", "AWS_REGION", "AWS_DEFAULT_REGION"),
    "endpoint_override": (
        "aws_endpoint_url",
        "aws_endpoint",
        "endpoint_url",
        "endpoint",
        "AWS_ENDPOINT_URL_S3",
        "AWS_ENDPOINT_URL",
    ),
}
# How the stores (and Arrow's and Polars' clients) word a refused credential.
ACCESS_DENIED = (
    "AccessDenied",
    "ACCESS_DENIED",
    "InvalidAccessKeyId",
    "INVALID_ACCESS_KEY_ID",
    "403",
)
# Polars' (object_store's) time limits and retries, which Arrow's S3 client takes as these; so
# one --storage-option bounds both clients. ``max_retries`` is Polars' own key.
TIMEOUTS = {"timeout": "request_timeout", "connect_timeout": "connect_timeout"}
# Polars' own storage options (beside object_store's, which are text), taken as numbers.
POLARS_NUMBERS: dict[str, type[int] | type[float]] = {
    "max_retries": int,
    "retry_timeout_ms": int,
    "retry_init_backoff_ms": int,
    "retry_max_backoff_ms": int,
    "retry_base_multiplier": float,
    "file_cache_ttl": int,
}
AZURE_OPTIONS = {
    "account_name": ("azure_storage_account_name", "account_name", "AZURE_STORAGE_ACCOUNT_NAME"),
    "account_key": ("azure_storage_account_key", "account_key", "AZURE_STORAGE_ACCOUNT_KEY"),
}


def is_remote(location: str) -> bool:
    """Whether ``location`` names an object in a store rather than a local path.

    >>> is_remote("s3://bucket/key.parquet"), is_remote("lake/in"), is_remote("C:/x")
    (True, False, False)
    """
    scheme, sep, _ = location.partition("://")
    return bool(sep) and scheme.lower() in REMOTE_SCHEMES


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """``KEY=VALUE`` pairs (the command's repeatable ``--storage-option``) as a mapping.

    >>> parse_options(["aws_region=eu-west-1", "aws_endpoint_url=http://127.0.0.1:9000"])
    {'aws_region': 'eu-west-1', 'aws_endpoint_url': 'http://127.0.0.1:9000'}
    """
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"a storage option is KEY=VALUE, not {pair!r}")
        options[key.strip()] = value
    return options


def for_polars(options: Mapping[str, str]) -> dict[str, Any] | None:
    """``options`` as Polars takes them (its own keys as numbers); None for none.

    >>> for_polars({"max_retries": "6", "aws_region": "eu-west-1"})
    {'max_retries': 6, 'aws_region': 'eu-west-1'}
    """
    try:
        return {k: POLARS_NUMBERS.get(k.lower(), str)(v) for k, v in options.items()} or None
    except ValueError:
        wrong = next(k for k in options if k.lower() in POLARS_NUMBERS)
        raise InputError(f"--storage-option {wrong}: {options[wrong]!r} is not a number") from None


def for_store(options: Mapping[str, str]) -> dict[str, str] | None:
    """``options`` without Polars' own keys, for a client that knows only object_store's."""
    return {k: v for k, v in options.items() if k.lower() not in POLARS_NUMBERS} or None


def split_location(location: str) -> tuple[str, str]:
    """A remote location's scheme and its path below the scheme (bucket first).

    >>> split_location("S3://bucket/a/b/")
    ('s3', 'bucket/a/b')
    """
    scheme, _, rest = location.partition("://")
    return scheme.lower(), rest.rstrip("/")


def join(location: str, *names: str) -> str:
    """``names`` below ``location``, local or remote.

    >>> join("s3://b/out/", "part=x", "a.parquet"), join("out", "_SUCCESS")
    ('s3://b/out/part=x/a.parquet', 'out/_SUCCESS')
    """
    if is_remote(location):
        return "/".join([location.rstrip("/"), *names])
    return str(Path(location, *names))


@dataclass(frozen=True)
class Store:
    """A location's file system (Arrow's) and the location's path in it."""

    fs: pafs.FileSystem
    path: str


def store(location: str, options: Mapping[str, str]) -> Store:
    """Arrow's file system that holds the remote ``location``, and its path in it."""
    import pyarrow.fs as pafs

    scheme, path = split_location(location)
    if scheme in ("s3", "s3a"):
        return Store(_s3(options), path)
    if scheme in ("gs", "gcs"):
        return Store(pafs.GcsFileSystem(), path)
    if scheme in ("az", "azure", "abfs", "abfss"):
        return Store(pafs.AzureFileSystem(**_chosen(AZURE_OPTIONS, options)), path)
    raise InputError(f"cannot list {location}: name its files, or a glob Polars expands")


def _chosen(names: Mapping[str, Sequence[str]], options: Mapping[str, str]) -> dict[str, str]:
    """Arrow's argument for each of ``names`` from the options, else the environment."""
    lowered = {key.lower(): value for key, value in options.items()}
    chosen = {}
    for argument, keys in names.items():
        for key in keys:
            value = os.environ.get(key) if key.isupper() else lowered.get(key)
            if value:
                chosen[argument] = value
                break
    return chosen


def _s3(options: Mapping[str, str]) -> pafs.FileSystem:
    import pyarrow.fs as pafs

    chosen: dict[str, Any] = _chosen(S3_OPTIONS, options)
    endpoint = chosen.get("endpoint_override", "")
    if "://" in endpoint:
        chosen["scheme"], chosen["endpoint_override"] = endpoint.split("://", 1)
    chosen.setdefault("region", "us-east-1")
    lowered = {key.lower(): value for key, value in options.items()}
    for key, argument in TIMEOUTS.items():
        if key in lowered:
            chosen[argument] = seconds(lowered[key])
    if "max_retries" in lowered:
        attempts = int(lowered["max_retries"]) + 1
        chosen["retry_strategy"] = pafs.AwsStandardS3RetryStrategy(max_attempts=attempts)
    # A write opened without a request of its own: a small object (a ledger entry, the lease,
    # the marker) is then one PUT rather than a multipart upload's three requests. Its
    # failures come at its first write or its close, which put() meets as any other.
    return pafs.S3FileSystem(**chosen, allow_delayed_open=True)


def seconds(duration: str) -> float:
    """A duration as Polars' object-store client writes one (``30s``, ``500ms``, ``2m``).

    >>> seconds("30s"), seconds("500ms"), seconds("2m"), seconds("1.5")
    (30.0, 0.5, 120.0, 1.5)
    """
    text = duration.strip().lower()
    for suffix, scale in (("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)):
        if text.endswith(suffix) and text[: -len(suffix)].replace(".", "", 1).isdigit():
            return float(text[: -len(suffix)]) * scale
    try:
        return float(text)
    except ValueError:
        raise InputError(f"--storage-option: {duration!r} is not a duration (30s, 500ms)") from None


def failure(location: str, exc: BaseException) -> InputError:
    """A store's error as one line that names the location (never a traceback)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if "NoSuchBucket" in text or ("Bucket" in text and "not found" in text):
        text = "no such bucket"
    elif any(s in text for s in ACCESS_DENIED):
        text = "access denied (check the credentials)"
    elif "SignatureDoesNotMatch" in text:
        text = "access denied (the secret key does not match)"
    return InputError(f"cannot use {location}: {text[:300]}")


def files_below(location: str, options: Mapping[str, str]) -> list[tuple[str, int]]:
    """Every file below ``location`` with its size, as full locations, in name order."""
    if not is_remote(location):
        return _local_files_below(location)
    import pyarrow.fs as pafs

    where = store(location, options)
    try:
        infos = where.fs.get_file_info(
            pafs.FileSelector(where.path, allow_not_found=True, recursive=True)
        )
    except (OSError, ValueError) as exc:
        raise failure(location, exc) from None
    found = [(i.path, i.size or 0) for i in infos if i.type == pafs.FileType.File]
    if not found and is_remote(location):
        _check_bucket(location, where)
    base = where.path.rstrip("/")
    return sorted((join(location, p[len(base) + 1 :]), size) for p, size in found)


def _local_files_below(location: str) -> list[tuple[str, int]]:
    """``files_below`` of a local folder, asked of the operating system.

    Loading Arrow for a listing (and NumPy with it, whose BLAS threads then spin) cost a lake
    run some 0.2 s of CPU.
    """
    root = Path(location)
    if not root.exists():
        return []
    if not root.is_dir():
        raise failure(location, NotADirectoryError("not a folder"))
    found = []
    try:
        for folder, _, names in os.walk(root, onerror=_unreadable):
            for name in names:
                path = os.path.join(folder, name)
                size = _local_size(path)
                if size is not None:
                    found.append((join(location, os.path.relpath(path, root)), size))
    except OSError as exc:
        raise failure(location, exc) from None
    return sorted(found)


def _unreadable(exc: OSError) -> None:
    """Fail the listing at a folder that cannot be listed, as Arrow's does.

    ``os.walk`` would skip it, and its files would be missing without a word.
    """
    raise exc


def _check_bucket(location: str, where: Store) -> None:
    """A listing that found nothing: say so plainly if the bucket itself is missing."""
    import pyarrow.fs as pafs

    bucket = where.path.split("/", 1)[0]
    try:
        missing = where.fs.get_file_info(bucket).type == pafs.FileType.NotFound
    except (OSError, ValueError) as exc:
        raise failure(location, exc) from None
    if missing:
        raise InputError(f"cannot use {location}: no such bucket")


def exists(location: str, options: Mapping[str, str]) -> bool:
    """Whether a file is at ``location``."""
    if not is_remote(location):
        return _local_size(location) is not None
    import pyarrow.fs as pafs

    where = store(location, options)
    try:
        return bool(where.fs.get_file_info(where.path).type == pafs.FileType.File)
    except (OSError, ValueError) as exc:
        raise failure(location, exc) from None


def sizes(locations: Sequence[str], options: Mapping[str, str]) -> list[int | None]:
    """The size of the file at each of ``locations`` now (None where there is none).

    Local files are asked of the operating system (a Parquet job never loads Arrow); remote
    ones in one request where the store takes one (the locations share a store).
    """
    if not locations:
        return []
    if not is_remote(locations[0]):
        return [_local_size(location) for location in locations]
    import pyarrow.fs as pafs

    where = store(locations[0], options)
    paths = [split_location(location)[1] for location in locations]
    try:
        infos = where.fs.get_file_info(paths)
    except (OSError, ValueError) as exc:
        raise failure(locations[0], exc) from None
    return [i.size if i.type == pafs.FileType.File else None for i in infos]


def _local_size(location: str) -> int | None:
    try:
        found = os.stat(location)
    except OSError:
        return None
    return found.st_size if stat.S_ISREG(found.st_mode) else None


def put(location: str, data: bytes, options: Mapping[str, str]) -> None:
    """Write ``data`` as the whole object (or file) at ``location``."""
    try:
        if not is_remote(location):
            Path(location).parent.mkdir(parents=True, exist_ok=True)
            Path(location).write_bytes(data)
            return
        where = store(location, options)
        with where.fs.open_output_stream(where.path) as stream:
            stream.write(data)
    except (OSError, ValueError) as exc:
        raise failure(location, exc) from None


def get(location: str, options: Mapping[str, str]) -> bytes:
    """The whole object (or file) at ``location``."""
    try:
        if not is_remote(location):
            return Path(location).read_bytes()
        where = store(location, options)
        with where.fs.open_input_stream(where.path) as stream:
            return bytes(stream.read())
    except (OSError, ValueError) as exc:
        raise failure(location, exc) from None


def remove(locations: Sequence[str], options: Mapping[str, str]) -> None:
    """Delete each file at ``locations`` (those already gone are no error)."""
    for location in locations:
        try:
            if not is_remote(location):
                Path(location).unlink()
                continue
            where = store(location, options)
            where.fs.delete_file(where.path)
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            raise failure(location, exc) from None


# Calls made at once on an object store's files, where each is a round trip to the store.
AT_ONCE = 8
Answer = TypeVar("Answer")


def map_files(
    location: str, call: Callable[..., Answer], *arguments: Iterable[Any]
) -> list[Answer]:
    """``call`` over ``arguments`` (as ``map``), a file a call, in order.

    Where ``location`` is on an object store, a few calls run at once: each is a round trip. On
    local disk they run one by one: reading a footer there is some 70 us, and threads cost more
    than they save (checking 100 files took 7 ms one by one, 12 in eight threads).
    """
    if not is_remote(location):
        return list(map(call, *arguments))
    with ThreadPoolExecutor(AT_ONCE) as pool:
        return list(pool.map(call, *arguments))


def remove_below(location: str, keep: str, options: Mapping[str, str]) -> None:
    """Delete every file below ``location`` but the one at ``keep``.

    On an object store a folder of two files or more (that does not hold ``keep``) goes in one
    call, which lists it and deletes its objects in bulk (S3's DeleteObjects): Arrow's delete
    of one file is three requests (it checks the object, deletes it and puts a marker of its
    folder), so a partition folder of three files cost nine.
    """
    found = [file for file, _ in files_below(location, options) if file != keep]
    if not is_remote(location):
        remove(found, options)
        return
    tops = {file: _top_folder(location, file) for file in found}
    counts = Counter(tops.values())
    whole = {f for f, n in counts.items() if f and n > 1 and f != _top_folder(location, keep)}
    where = store(location, options)
    for folder in sorted(whole):
        try:
            where.fs.delete_dir(split_location(folder)[1])
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            raise failure(folder, exc) from None
    remove([file for file in found if tops[file] not in whole], options)


def _top_folder(location: str, file: str) -> str:
    """The folder directly below ``location`` that holds ``file``; empty for one directly in it.

    >>> _top_folder("s3://b/out", "s3://b/out/k=1/part-0.parquet")
    's3://b/out/k=1'
    >>> _top_folder("s3://b/out/", "s3://b/out/_SUCCESS")
    ''
    """
    base = location.rstrip("/") + "/"
    head, slash, _ = file[len(base) :].partition("/")
    return base + head if slash else ""


_COPIES: list[Path] = []


def fetched(location: str, options: Mapping[str, str]) -> str:
    """A local copy of the remote file at ``location``, for the byte-level line readers.

    The copy streams through a temporary folder removed when the process exits (or by
    :func:`release`); the readers then keep their guarantees on bad bytes and bad lines.
    """
    where = store(location, options)
    folder = Path(tempfile.mkdtemp(prefix="urlnorm-fetch-"))
    _COPIES.append(folder)
    copy = folder / Path(where.path).name
    try:
        with where.fs.open_input_stream(where.path) as source, open(copy, "wb") as out:
            shutil.copyfileobj(source, out, 1 << 22)
    except (OSError, ValueError) as exc:
        raise failure(location, exc) from None
    return str(copy)


def release() -> None:
    """Remove every local copy made by :func:`fetched` so far."""
    while _COPIES:
        shutil.rmtree(_COPIES.pop(), ignore_errors=True)


atexit.register(release)

"""A real S3-protocol server on 127.0.0.1 (moto's server mode), for the tests and the benchmark.

It runs as a subprocess on a free port and is stopped when the block ends; nothing talks to
any other address. The variables it yields reach it from any client that reads the standard
AWS variables (Polars, Arrow, boto3, a ``urlnorm`` subprocess).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def s3_server(
    bucket: str | None, *, key: str = "testing", server_env: dict[str, str] | None = None
) -> Iterator[dict[str, str]]:
    """A server with ``bucket`` made (if named); yields the variables that reach it as ``key``.

    ``server_env`` configures moto itself (``INITIAL_NO_AUTH_ACTION_COUNT=0`` makes it check
    every request's credentials).
    """
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(server_env or {})},
    )
    env = {
        "AWS_ACCESS_KEY_ID": key,
        "AWS_SECRET_ACCESS_KEY": key,
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "AWS_ALLOW_HTTP": "true",
    }
    try:
        _wait(port)
        if bucket is not None:
            _make_bucket(env, bucket)
        yield env
    finally:
        server.terminate()
        server.wait(10)


def _wait(port: int) -> None:
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), 0.1).close()
            return
        except OSError:
            time.sleep(0.05)


def _make_bucket(env: dict[str, str], bucket: str) -> None:
    import pyarrow.fs as pafs

    fs = pafs.S3FileSystem(
        access_key=env["AWS_ACCESS_KEY_ID"],
        secret_key=env["AWS_SECRET_ACCESS_KEY"],
        endpoint_override=env["AWS_ENDPOINT_URL"],
        region=env["AWS_REGION"],
        allow_bucket_creation=True,
    )
    fs.create_dir(bucket)


def s3_options(env: dict[str, str]) -> dict[str, str]:
    """The server's address and credentials as Polars' storage options.

    Always given in full: a client without credentials would ask the cloud's instance
    metadata address for them, which is not on this machine.
    """
    return {
        "aws_endpoint_url": env["AWS_ENDPOINT_URL"],
        "aws_allow_http": "true",
        "aws_access_key_id": env["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": env["AWS_SECRET_ACCESS_KEY"],
        "aws_region": env["AWS_REGION"],
    }

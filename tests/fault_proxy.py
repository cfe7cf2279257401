"""A fault-injecting HTTP proxy on 127.0.0.1, in front of the tests' S3 server.

Each request is relayed on its own upstream connection; a chosen share of the requests of
chosen kinds (reads, writes, listings, the marker's put and delete) meets a fault instead:
the connection reset before any answer, S3's ``503 SlowDown``, an answer cut short, or a
stall (no answer for ``STALL_SECONDS``, past the client's timeout). The proxy counts what
it injected, so a test can say how many faults a run survived.
"""

from __future__ import annotations

import itertools
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

FAULTS = ("reset", "slowdown", "truncate", "stall")
# How long a stalled request is held without an answer: past any client timeout a test sets.
STALL_SECONDS = 30
KINDS = ("read", "write", "list", "marker")
SLOWDOWN_BODY = (
    b"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
)
SLOWDOWN = (
    b"HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\n"
    + f"Content-Length: {len(SLOWDOWN_BODY)}\r\nConnection: close\r\n\r\n".encode()
    + SLOWDOWN_BODY
)


@dataclass
class Plan:
    """Which fault, on which kinds of request: the first of a kind and one in ``every`` after.

    Starting with the first reaches a kind a run asks little of: the marker's existence and its
    put are two requests a run.
    """

    fault: str
    kinds: tuple[str, ...] = KINDS
    every: int = 4
    injected: Counter[str] = field(default_factory=Counter)
    seen: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Every request line relayed or struck, in order, for a test that waits on a request.
    requests: list[bytes] = field(default_factory=list)

    def strikes(self, line: bytes) -> bool:
        """Whether the request ``line`` meets the fault (counted)."""
        kind = request_kind(line)
        with self.lock:
            self.requests.append(line)
            self.seen[kind] += 1
            if kind not in self.kinds or (self.seen[kind] - 1) % self.every:
                return False
            self.injected[kind] += 1
            return True


def request_kind(head: bytes) -> str:
    """What an S3 request does, from its request line.

    >>> request_kind(b"GET /lake?list-type=2&prefix=in HTTP/1.1")
    'list'
    >>> request_kind(b"PUT /lake/out/_SUCCESS HTTP/1.1"), request_kind(b"HEAD /lake/a HTTP/1.1")
    ('marker', 'read')
    """
    method, target = head.split(b" ", 2)[:2]
    if b"_SUCCESS" in target:
        return "marker"
    if method == b"GET" and (b"list-type" in target or b"delimiter" in target):
        return "list"
    return "read" if method in (b"GET", b"HEAD") else "write"


def _read_message(conn: socket.socket, buffered: bytes) -> tuple[bytes, bytes, bytes] | None:
    """One HTTP message's head and body from ``conn`` (Content-Length or chunked), and the rest."""
    data = buffered
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, data = data.partition(b"\r\n\r\n")
    headers = {
        k.strip().lower(): v.strip()
        for k, _, v in (line.partition(b":") for line in head.split(b"\r\n")[1:])
    }
    if headers.get(b"transfer-encoding", b"").lower() == b"chunked":
        while not data.endswith(b"0\r\n\r\n"):
            chunk = conn.recv(65536)
            if not chunk:
                return None
            data += chunk
        return head, data, b""
    length = int(headers.get(b"content-length", b"0"))
    while len(data) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    return head, data[:length], data[length:]


def _reset(conn: socket.socket) -> None:
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


def _relay(head: bytes, body: bytes, upstream: tuple[str, int]) -> bytes:
    """The upstream's whole answer to one request (sent with ``Connection: close``)."""
    lines = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"connection:")]
    request = b"\r\n".join([*lines, b"Connection: close"]) + b"\r\n\r\n" + body
    with socket.create_connection(upstream) as up:
        up.sendall(request)
        answer = b""
        while chunk := up.recv(65536):
            answer += chunk
    return answer


def _serve(conn: socket.socket, upstream: tuple[str, int], plan: Plan) -> None:
    buffered = b""
    with conn:
        while message := _read_message(conn, buffered):
            head, body, buffered = message
            struck = plan.strikes(head.split(b"\r\n", 1)[0])
            if struck and plan.fault == "reset":
                _reset(conn)
                return
            if struck and plan.fault == "slowdown":
                conn.sendall(SLOWDOWN)
                return
            if struck and plan.fault == "stall":
                time.sleep(STALL_SECONDS)
                return
            answer = _relay(head, body, upstream)
            if struck:  # truncate: half the answer (after the store has done the request)
                conn.sendall(answer[: len(answer) // 2])
                _reset(conn)
                return
            conn.sendall(answer)
            return  # the upstream closed: so does the proxy, and the client reconnects


@contextmanager
def fault_proxy(upstream_url: str, plan: Plan) -> Iterator[str]:
    """The proxy's address (``http://127.0.0.1:PORT``) while the block runs."""
    host, port = upstream_url.removeprefix("http://").split(":")
    upstream = (host, int(port))
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def accept() -> None:
        for _ in itertools.count():
            if stop.is_set():
                return
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=_serve, args=(conn, upstream, plan), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        listener.close()

"""The WHATWG URL Standard's basic URL parser (§4.4), one method per state.

This is urlnorm's reference for browser behaviour: ``parse(input, base)`` returns what
``new URL(input, base)`` gives. The states map onto the URL Specification's parser modes:
the special schemes take *web mode* (``file`` takes *file mode*), every other scheme
*generic mode*; resolution against a base is its "WHATWG resolution" (force + goto).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeAlias

from . import errors
from .errors import URLError
from .host import parse_host
from .path import (
    is_double_dot,
    is_single_dot,
    is_windows_drive_letter,
    starts_with_windows_drive_letter,
)
from .percent import (
    ALPHA,
    C0_CONTROL,
    FRAGMENT,
    PATH,
    QUERY,
    SCHEME_CHARS,
    SPECIAL_QUERY,
    USERINFO,
    EncodeSet,
    percent_encode,
)
from .record import URL

# https://url.spec.whatwg.org/#special-scheme, with each scheme's default port.
SPECIAL_SCHEMES: dict[str, int | None] = {
    "ftp": 21,
    "file": None,
    "http": 80,
    "https": 443,
    "ws": 80,
    "wss": 443,
}
C0_OR_SPACE = "".join(map(chr, range(0x21)))
_TAB_OR_NEWLINE = re.compile("[\t\n\r]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
EOF = ""
# Where the states that only accumulate code points stop; ``\\`` ends a run only in special
# URLs. Consuming a run at once gives the same result as the spec's one code point per step.
_RUN_END = {
    "authority": (re.compile(r"[@/?#\\]"), re.compile(r"[@/?#]")),
    "host": (re.compile(r"[:\[\]/?#\\]"), re.compile(r"[:\[\]/?#]")),
    "path": (re.compile(r"[/?#\\]"), re.compile(r"[/?#]")),
}
_OPAQUE_PATH_END = re.compile(r"[?# ]")
_SCHEME_RUN_END = re.compile(r"[^A-Za-z0-9+.-]")
# A parser state: consumes one code point (EOF is "") and returns the next state.
_State: TypeAlias = Callable[[str], "_State"]


@dataclass
class ParsedURL:
    """The URL Standard's URL record (§4.1): a list path, or a string for an opaque path."""

    scheme: str = ""
    username: str = ""
    password: str = ""
    host: str | None = None
    port: int | None = None
    path: list[str] | str = field(default_factory=list)
    query: str | None = None
    fragment: str | None = None

    @property
    def special(self) -> bool:
        """Whether the scheme is special (§4.1): web mode, or file mode for ``file``."""
        return self.scheme in SPECIAL_SCHEMES

    @property
    def opaque(self) -> bool:
        """Whether the URL has an opaque path (``mailto:x``), which takes no relative refs."""
        return isinstance(self.path, str)

    def path_list(self) -> list[str]:
        """The path as a list of segments; only for URLs without an opaque path."""
        assert isinstance(self.path, list)
        return self.path

    def shorten_path(self) -> None:
        """§4.1 shorten a URL's path: keep a lone normalized drive letter of a file URL."""
        path = self.path_list()
        if (
            self.scheme == "file"
            and len(path) == 1
            and is_windows_drive_letter(path[0], normalized=True)
        ):
            return
        if path:
            path.pop()

    def to_record(self) -> URL:
        """The project's URL record: empty username/password become absent."""
        path = self.path if isinstance(self.path, str) else "".join("/" + s for s in self.path)
        return URL(
            scheme=self.scheme,
            username=self.username or None,
            password=self.password or None,
            host=self.host,
            port=self.port,
            path=path,
            query=self.query,
            fragment=self.fragment,
        )


def strip_and_remove_tab_newline(text: str) -> str:
    """Strip leading/trailing C0 control or space and remove tab/LF/CR (§4.4 steps 1–3).

    >>> strip_and_remove_tab_newline(" \\x00ht\\ttp://a/\\n ")
    'http://a/'
    """
    return _TAB_OR_NEWLINE.sub("", text.strip(C0_OR_SPACE))


def preprocess(text: str) -> str:
    """§4.4 steps 1–3, after turning lone surrogates into U+FFFD.

    The URL Standard parses scalar value strings; the JavaScript binding's USVString
    conversion replaces lone surrogates the same way.
    """
    return strip_and_remove_tab_newline(_LONE_SURROGATE.sub("\ufffd", text))


class _Parser:
    """State for one run of the basic URL parser over a preprocessed input."""

    def __init__(self, text: str, base: ParsedURL | None) -> None:
        self.input = text
        self.base = base
        self.url = ParsedURL()
        self.buffer = ""
        self.pointer = 0
        self.at_sign_seen = self.inside_brackets = self.password_token_seen = False

    def fail(self, code: str) -> URLError:
        return URLError(code, self.input)

    @property
    def remaining(self) -> str:
        return self.input[self.pointer + 1 :]

    def run(self) -> ParsedURL:
        state: _State = self.scheme_start
        chars = [*self.input, EOF]
        while self.pointer < len(chars):
            state = state(chars[self.pointer])
            self.pointer += 1
        return self.url

    def take_run(self, end: re.Pattern[str]) -> str:
        """Consume the current code point and what follows, up to the next match of ``end``.

        The caller has already decided the current code point belongs to the run (``:`` inside
        IPv6 brackets, say), so the search starts after it.
        """
        m = end.search(self.input, self.pointer + 1)
        stop = m.start() if m else len(self.input)
        run = self.input[self.pointer : stop]
        self.pointer = stop - 1
        return run

    def run_end(self, state: str) -> re.Pattern[str]:
        special, other = _RUN_END[state]
        return special if self.url.special else other

    def is_slash(self, c: str) -> bool:
        """``/``, or ``\\`` for a special URL (the URL Standard treats them alike there)."""
        return c == "/" or (c == "\\" and self.url.special)

    def ends_segment(self, c: str) -> bool:
        return c in (EOF, "?", "#") or self.is_slash(c)

    def back(self, state: _State) -> _State:
        """Re-read the current code point in ``state`` ("decrease pointer by 1")."""
        self.pointer -= 1
        return state

    def start_query(self) -> _State:
        self.url.query = ""
        return self.query

    def start_fragment(self) -> _State:
        self.url.fragment = ""
        return self.fragment

    # --- scheme -----------------------------------------------------------------------------

    def scheme_start(self, c: str) -> _State:
        if c and c in ALPHA:
            self.buffer += c.lower()
            return self.scheme
        return self.back(self.no_scheme)

    def scheme(self, c: str) -> _State:
        if c and c in SCHEME_CHARS:
            self.buffer += self.take_run(_SCHEME_RUN_END).lower()
            return self.scheme
        if c != ":":
            self.buffer = ""
            self.pointer = -1
            return self.no_scheme
        self.url.scheme, self.buffer = self.buffer, ""
        return self.after_scheme()

    def after_scheme(self) -> _State:
        if self.url.scheme == "file":
            return self.file
        if self.url.special:
            if self.base is not None and self.base.scheme == self.url.scheme:
                return self.special_relative_or_authority
            return self.special_authority_slashes
        if self.remaining.startswith("/"):
            self.pointer += 1
            return self.path_or_authority
        self.url.path = ""
        return self.opaque_path

    def no_scheme(self, c: str) -> _State:
        base = self.base
        if base is None or (base.opaque and c != "#"):
            raise self.fail(errors.MISSING_SCHEME)
        if base.opaque:
            self.url.scheme, self.url.path, self.url.query = base.scheme, base.path, base.query
            return self.start_fragment()
        return self.back(self.file if base.scheme == "file" else self.relative)

    # --- authority --------------------------------------------------------------------------

    def special_relative_or_authority(self, c: str) -> _State:
        if c == "/" and self.remaining.startswith("/"):
            self.pointer += 1
            return self.special_authority_ignore_slashes
        return self.back(self.relative)

    def path_or_authority(self, c: str) -> _State:
        return self.authority if c == "/" else self.back(self.path)

    def relative(self, c: str) -> _State:
        base = self.base
        assert base is not None
        self.url.scheme = base.scheme
        if self.is_slash(c):
            return self.relative_slash
        self.copy_authority(base)
        self.url.path, self.url.query = list(base.path_list()), base.query
        if c == "?":
            return self.start_query()
        if c == "#":
            return self.start_fragment()
        if c != EOF:
            self.url.query = None
            self.url.shorten_path()
            return self.back(self.path)
        return self.relative

    def copy_authority(self, base: ParsedURL) -> None:
        self.url.username, self.url.password = base.username, base.password
        self.url.host, self.url.port = base.host, base.port

    def relative_slash(self, c: str) -> _State:
        if self.url.special and c in ("/", "\\"):
            return self.special_authority_ignore_slashes
        if c == "/":
            return self.authority
        assert self.base is not None
        self.copy_authority(self.base)
        return self.back(self.path)

    def special_authority_slashes(self, c: str) -> _State:
        if c == "/" and self.remaining.startswith("/"):
            self.pointer += 1
        else:
            self.pointer -= 1
        return self.special_authority_ignore_slashes

    def special_authority_ignore_slashes(self, c: str) -> _State:
        if c in ("/", "\\"):
            return self.special_authority_ignore_slashes
        return self.back(self.authority)

    def authority(self, c: str) -> _State:
        if c == "@":
            self.take_userinfo()
            return self.authority
        if c in (EOF, "/", "?", "#") or (self.url.special and c == "\\"):
            if self.at_sign_seen and self.buffer == "":
                raise self.fail(errors.HOST_MISSING)
            self.pointer -= len(self.buffer) + 1
            self.buffer = ""
            return self.host
        self.buffer += self.take_run(self.run_end("authority"))
        return self.authority

    def take_userinfo(self) -> None:
        """Move the buffer into username and password at an ``@`` (§4.4 authority state)."""
        if self.at_sign_seen:
            self.buffer = "%40" + self.buffer
        self.at_sign_seen = True
        # The first ':' splits the buffer; any after it is encoded into the password.
        if self.password_token_seen:
            self.url.password += percent_encode(self.buffer, USERINFO)
        else:
            name, colon, password = self.buffer.partition(":")
            self.url.username += percent_encode(name, USERINFO)
            self.password_token_seen = colon == ":"
            self.url.password += percent_encode(password, USERINFO)
        self.buffer = ""

    def host(self, c: str) -> _State:
        if c == ":" and not self.inside_brackets:
            if self.buffer == "":
                raise self.fail(errors.HOST_MISSING)
            self.set_host()
            return self.port
        if c in (EOF, "/", "?", "#") or (self.url.special and c == "\\"):
            if self.url.special and self.buffer == "":
                raise self.fail(errors.HOST_MISSING)
            self.set_host()
            return self.back(self.path_start)
        if c in "[]":
            self.inside_brackets = c == "["
            self.buffer += c
        else:
            self.buffer += self.take_run(self.run_end("host"))
        return self.host

    def set_host(self) -> None:
        self.url.host = parse_host(self.buffer, special=self.url.special)
        self.buffer = ""

    def port(self, c: str) -> _State:
        if c and c in string.digits:
            self.buffer += c
            return self.port
        if c in (EOF, "/", "?", "#") or (self.url.special and c == "\\"):
            if self.buffer:
                self.url.port = self.port_value(self.buffer)
                self.buffer = ""
            return self.back(self.path_start)
        raise self.fail(errors.PORT_INVALID)

    def port_value(self, digits: str) -> int | None:
        digits = digits.lstrip("0") or "0"
        if len(digits) > 5 or int(digits) > 65535:
            raise self.fail(errors.PORT_OUT_OF_RANGE)
        port = int(digits)
        return None if SPECIAL_SCHEMES.get(self.url.scheme) == port else port

    # --- file -------------------------------------------------------------------------------

    def file(self, c: str) -> _State:
        self.url.scheme, self.url.host = "file", ""
        if c in ("/", "\\"):
            return self.file_slash
        base = self.base
        if base is None or base.scheme != "file":
            return self.back(self.path)
        self.url.host, self.url.path, self.url.query = base.host, list(base.path_list()), base.query
        if c == "?":
            return self.start_query()
        if c == "#":
            return self.start_fragment()
        if c != EOF:
            self.url.query = None
            if starts_with_windows_drive_letter(self.input[self.pointer :]):
                self.url.path = []
            else:
                self.url.shorten_path()
            return self.back(self.path)
        return self.file

    def file_slash(self, c: str) -> _State:
        if c in ("/", "\\"):
            return self.file_host
        base = self.base
        if base is not None and base.scheme == "file":
            self.url.host = base.host
            base_path = base.path_list()
            if (
                not starts_with_windows_drive_letter(self.input[self.pointer :])
                and base_path
                and is_windows_drive_letter(base_path[0], normalized=True)
            ):
                self.url.path_list().append(base_path[0])
        return self.back(self.path)

    def file_host(self, c: str) -> _State:
        if c not in (EOF, "/", "\\", "?", "#"):
            self.buffer += c
            return self.file_host
        self.pointer -= 1
        if is_windows_drive_letter(self.buffer):
            # The drive-letter quirk: the buffer is kept and becomes the first path segment.
            return self.path
        host = "" if self.buffer == "" else parse_host(self.buffer, special=True)
        self.url.host = "" if host == "localhost" else host
        self.buffer = ""
        return self.path_start

    # --- path, query, fragment --------------------------------------------------------------

    def path_start(self, c: str) -> _State:
        if self.url.special:
            return self.path if self.is_slash(c) else self.back(self.path)
        if c == "?":
            return self.start_query()
        if c == "#":
            return self.start_fragment()
        if c != EOF:
            return self.path if c == "/" else self.back(self.path)
        return self.path_start

    def path(self, c: str) -> _State:
        if not self.ends_segment(c):
            self.buffer += percent_encode(self.take_run(self.run_end("path")), PATH)
            return self.path
        self.end_segment(c)
        if c == "?":
            return self.start_query()
        if c == "#":
            return self.start_fragment()
        return self.path

    def end_segment(self, c: str) -> None:
        """Append the buffered segment, resolving ``.`` and ``..`` (§4.4 path state)."""
        path, buffer, at_end = self.url.path_list(), self.buffer, not self.is_slash(c)
        if is_double_dot(buffer):
            self.url.shorten_path()
            if at_end:
                path.append("")
        elif is_single_dot(buffer):
            if at_end:
                path.append("")
        else:
            if self.url.scheme == "file" and not path and is_windows_drive_letter(buffer):
                buffer = buffer[0] + ":"
            path.append(buffer)
        self.buffer = ""

    def opaque_path(self, c: str) -> _State:
        if c == "?":
            return self.start_query()
        if c == "#":
            return self.start_fragment()
        if c == " " and self.remaining[:1] in ("?", "#"):
            # A space before ? or # would be stripped if they were later removed (§4.4).
            self.url.path = str(self.url.path) + "%20"
        elif c != EOF:
            run = c if c == " " else self.take_run(_OPAQUE_PATH_END)
            self.url.path = str(self.url.path) + percent_encode(run, C0_CONTROL)
        return self.opaque_path

    def query(self, c: str) -> _State:
        if c not in (EOF, "#"):
            end = self.input.find("#", self.pointer)
            end = len(self.input) if end < 0 else end
            self.buffer += self.input[self.pointer : end]
            self.pointer = end - 1
            return self.query
        encode_set: EncodeSet = SPECIAL_QUERY if self.url.special else QUERY
        self.url.query = str(self.url.query) + percent_encode(self.buffer, encode_set)
        self.buffer = ""
        return self.start_fragment() if c == "#" else self.query

    def fragment(self, c: str) -> _State:
        if c != EOF:
            rest = self.input[self.pointer :]
            self.url.fragment = str(self.url.fragment) + percent_encode(rest, FRAGMENT)
            self.pointer = len(self.input) - 1
        return self.fragment


def parse(text: str, base: ParsedURL | None = None) -> ParsedURL:
    """The basic URL parser (URL Standard §4.4) without state override.

    >>> parse("HTTP://EXAMPLE.com:80/a/../b c").to_record()
    URL(scheme='http', username=None, password=None, host='example.com', port=None, \
path='/b%20c', query=None, fragment=None)
    """
    return _Parser(preprocess(text), base).run()

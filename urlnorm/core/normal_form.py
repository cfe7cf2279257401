"""URLs already in a profile's normal form: the scan that recognises them without a parse.

Most real URLs need no work: 99.6% of the bundled corpora come out of ``canonical``
unchanged. The kernel (``_native/normal_form.c``, this module's twin) scans each row once; a
row the scan accepts is handed back as it is, and its parts are slices of it. The scan
accepts only what it can prove the parse and the profile's rules leave unchanged: a special
scheme in lower case, ``//``, a lower-case domain whose last label starts with a letter (or,
for ``file``, none), a port that is not the default, and a path, query and fragment of bytes
no encode set holds, with no dot segment and, where the profile has the percent rules, only
upper-case escapes of reserved bytes. A profile whose rules begin with the percent pair also
takes a URL whose only other escapes are those the pair rewrites: its normal form is the URL
with them rewritten (``escapes_written`` is then false). A WHATWG profile also takes a path
with dot segments (``.`` and ``..`` as written, not escaped): its normal form has them
removed, as the parse removes them (``segments_written`` is then false). Anything else is
parsed.

This module is the scan's reference, not a fast path of the core: the core always parses,
so that the tests can prove, row by row, that every URL the scan accepts is one the core
gives back unchanged.

>>> from urlnorm.core.profiles import CANONICAL
>>> normal_form("https://example.com/a?b=1#c", requirements(CANONICAL))  # doctest: +ELLIPSIS
Spans(scheme='https', host='example.com', port=None, path='/a', query='b=1', fragment='c', ...)
>>> normal_form("https://example.com/a/../b", frozenset()) is None
True
>>> normal_form("https://example.com/a/../b", requirements(CANONICAL)).path
'/b'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .path import remove_dot_segments
from .percent import (
    ALPHA,
    DIGIT,
    FRAGMENT,
    PATH,
    SPECIAL_QUERY,
    UNRESERVED,
    EncodeSet,
    decode_unreserved,
    uppercase_escapes,
)
from .profiles import RFC3986, Profile
from .rules import DEFAULT_PORTS, Rule, TextRule
from .whatwg import SPECIAL_SCHEMES

# What a profile's rules ask of a URL, beyond the parse's own form, in the kernel's bit order
# (its NF_NAMES).
REQUIREMENTS = (
    "escapes",
    "no_query",
    "no_fragment",
    "no_www",
    "no_path_parameters",
    "not_https",
    "no_trailing_slash",
    # A generic profile's: the generic split folds no case (its rules do, and a profile may
    # stop before them), so its scheme, host and port must be as written, unless its rules
    # fold them as the scan respells them (_FOLDS_AUTHORITY).
    "as_written",
    # Not a requirement but leave to meet "escapes" otherwise: where the rules begin with the
    # percent pair, a URL whose escapes the pair rewrites is taken, its normal form them
    # rewritten.
    "rewrite_escapes",
    # Leave too: a WHATWG profile's parse removes a path's dot segments (as does rfc3986's
    # rule), so a URL whose path has some is taken, its normal form them removed.
    "dot_segments",
)
# The percent pair, in its order: a profile whose record rules begin with it applies it as the
# parse writes (the kernel's parse_escapes).
_PAIR = ["uppercase_percent_hex", "decode_unreserved"]
# Each kernel rule's requirement (None: it leaves every URL the scan accepts as it is); a rule
# not named here can change any URL, so a profile that has it is always parsed. The rfc3986
# profile's rules are the standards' equivalences, each of which such a URL already meets, but
# for the percent pair.
_REQUIREMENT: dict[str, str | None] = {
    **dict.fromkeys(rule.name for rule in RFC3986.rules),
    "drop_trailing_dot": None,
    "uppercase_percent_hex": "escapes",
    "decode_unreserved": "escapes",
    "drop_fragment": "no_fragment",
    "drop_fragment_except_hashbang": "no_fragment",
    **dict.fromkeys(
        (
            "drop_parameters",
            "clean_query",
            "sort_query",
            "drop_session_hash_parameters",
            "drop_duplicate_parameters",
            "site_parameters",
        ),
        "no_query",
    ),
    "drop_path_session_id": "no_path_parameters",
    "strip_www": "no_www",
    "fold_https": "not_https",
    "drop_trailing_slash": "no_trailing_slash",
}
# The rules that fold a generic profile's authority as the scan's respelling does (RFC 3986
# §6.2.2.1, §6.2.3): the case of its scheme and host, and a default port. The generic split
# reads a port as a number, so its spelling (empty, leading zeros) is the split's to fold.
_FOLDS_AUTHORITY = frozenset(("lowercase_scheme", "lowercase_host", "drop_default_port"))
_PRINTABLE = frozenset(chr(b) for b in range(0x21, 0x7F))


def _part_bytes(encode_set: EncodeSet, delimiters: str) -> frozenset[str]:
    return frozenset(c for c in _PRINTABLE if c not in encode_set and c not in delimiters)


# The bytes each part takes as they are (the URL Standard's encode sets, less the delimiters
# the scan stops at); a host's are the lower-case unreserved ones (RFC 3986 §2.3).
_HOST = frozenset(c for c in UNRESERVED if not c.isupper())
_PATH = _part_bytes(PATH, "/\\%")
_QUERY = _part_bytes(SPECIAL_QUERY, "%#")
_FRAGMENT = _part_bytes(FRAGMENT, "%")
_HEX = "0123456789ABCDEFabcdef"


@dataclass(frozen=True)
class Spans:
    """The parts of a URL in normal form: each a slice of it where ``as_written``."""

    scheme: str
    host: str
    port: int | None
    path: str
    query: str | None
    fragment: str | None
    as_written: bool = True
    escapes_written: bool = True
    segments_written: bool = True


def requirements(profile: Profile) -> frozenset[str] | None:
    """What ``profile``'s rules ask of a URL to leave it as it is; None if a rule may change any.

    >>> from urlnorm.core.crawl import CRAWL
    >>> sorted(requirements(CRAWL))  # doctest: +NORMALIZE_WHITESPACE
    ['dot_segments', 'escapes', 'no_fragment', 'no_path_parameters', 'no_query', 'no_www',
     'rewrite_escapes']
    """
    asked = _requirements(profile.rules)
    if asked is None:
        return None
    record_rules = [rule.name for rule in profile.rules if not isinstance(rule, TextRule)]
    if profile.mode == "generic":
        return asked | _generic_requirements(record_rules)
    pair = {"rewrite_escapes"} if record_rules[:2] == _PAIR else set()
    return asked | pair | {"dot_segments"}


def _generic_requirements(record_rules: list[str]) -> frozenset[str]:
    """What a generic profile's record rules ask of the authority, and what they leave.

    The generic split folds no case: the scheme, host and port are as written unless the rules
    fold them (_FOLDS_AUTHORITY). It keeps dot segments: the rule removes them (RFC 3986
    §5.2.4) from a path the scan takes as the WHATWG parse does. The rules may fold the scheme
    before the percent pair (rfc3986's order), which reads no escape: a scheme has none.

    >>> sorted(_generic_requirements([r.name for r in RFC3986.rules[1:]]))
    ['dot_segments', 'rewrite_escapes']
    >>> sorted(_generic_requirements(["lowercase_host", "uppercase_percent_hex"]))
    ['as_written']
    """
    authority = set() if set(record_rules) >= _FOLDS_AUTHORITY else {"as_written"}
    dots = {"dot_segments"} if "remove_dot_segments" in record_rules else set()
    lead = record_rules[1:3] if record_rules[:1] == ["lowercase_scheme"] else record_rules[:2]
    pair = {"rewrite_escapes"} if lead == _PAIR else set()
    return frozenset(authority | dots | pair)


def _requirements(rules: Iterable[Rule | TextRule]) -> frozenset[str] | None:
    asked: set[str] = set()
    for rule in rules:
        kernel = rule.kernel.rule if rule.kernel else ""
        if kernel not in _REQUIREMENT:
            return None
        requirement = _REQUIREMENT[kernel]
        asked.update([requirement] if requirement else [])
    return frozenset(asked)


def normal_form(text: str, asked: frozenset[str] | None) -> Spans | None:
    """``text``'s parts if it is in normal form under the requirements ``asked``, else None.

    A profile without the crawl rules' requirements also takes a URL that is its own normal
    form but for its scheme's and host's ASCII case and its port's spelling (upper-case
    letters, a default or empty port, leading zeros): its parts are then the parse's (folded
    and read) and ``as_written`` is false.

    A profile whose rules begin with the percent pair takes a URL whose escapes the pair
    rewrites: its parts are then rewritten and ``escapes_written`` is false. A WHATWG
    profile (whose requirements leave ``dot_segments``) takes a path with dot segments: its
    path is then without them and ``segments_written`` is false.

    >>> normal_form("HTTP://Example.com:0081/a", frozenset())  # doctest: +NORMALIZE_WHITESPACE
    Spans(scheme='http', host='example.com', port=81, path='/a', query=None, fragment=None,
          as_written=False, escapes_written=True, segments_written=True)
    >>> from urlnorm.core.profiles import CANONICAL
    >>> normal_form("https://a.example/%7e?q=%2f", requirements(CANONICAL))
    ... # doctest: +NORMALIZE_WHITESPACE
    Spans(scheme='https', host='a.example', port=None, path='/~', query='q=%2F', fragment=None,
          as_written=True, escapes_written=False, segments_written=True)
    """
    if asked is None:
        return None
    any_case = asked <= {"escapes", "rewrite_escapes", "dot_segments"}
    scheme = _scheme(text, any_case)
    file = scheme == "file"
    host_start = len(scheme) + 3 if scheme else 0
    host_end = _host_end(text, host_start, any_case) if scheme else host_start
    if (host_end == host_start and not file) or host_end >= len(text):
        return None
    port, path_start, port_written = _port(text, host_end, scheme, any_case)
    if path_start is None or text[path_start : path_start + 1] != "/":
        return None
    host = text[host_start:host_end]
    if file and not _file_as_is(host, text[path_start:]):
        return None
    path_end = _part_end(text, path_start, asked, _PATH)
    if path_end is None:
        return None
    after = _query_and_fragment(text, path_end, asked)
    if after is None:
        return None
    written = port_written and text[: len(scheme)] == scheme and host == host.lower()
    raw, (query, fragment) = text[path_start:path_end], after
    path = remove_dot_segments(raw) if "dot_segments" in asked else raw
    segments_written, escapes_written = path == raw, True
    if "rewrite_escapes" in asked:
        escapes_written = (_pair(raw), *map(_pair_or_none, after)) == (raw, *after)
        path, query, fragment = _pair(path), _pair_or_none(query), _pair_or_none(fragment)
    # A decoded first segment may spell a drive letter, at which ".." stops.
    if file and not (escapes_written and segments_written):
        return None
    respelt = (written, escapes_written, segments_written)
    spans = Spans(scheme, host.lower(), port, path, query, fragment, *respelt)
    return spans if _meets_crawl_rules(spans, raw, asked) else None


def _pair(part: str) -> str:
    """The percent pair on a part, in its order (RFC 3986 §6.2.2.1, §6.2.2.2)."""
    return decode_unreserved(uppercase_escapes(part))


def _pair_or_none(part: str | None) -> str | None:
    return None if part is None else _pair(part)


def _scheme(text: str, any_case: bool) -> str:
    """A special scheme before ``://``, in lower case (or in either, lower-cased); else ``""``."""
    scheme, sep, _ = text.partition("://")
    if any_case and scheme.isascii():
        scheme = scheme.lower()
    return scheme if sep and scheme in SPECIAL_SCHEMES else ""


def _file_as_is(host: str, path: str) -> bool:
    """A file URL's host is not ``localhost`` and its path does not start as a drive letter."""
    return host.lower() != "localhost" and path[2:3] not in (":", "|")


def _host_end(text: str, start: int, any_case: bool) -> int:
    """The end of an unreserved host whose last label starts with a letter, else ``start``.

    Its letters are lower case, or of either case where ``any_case``.
    """
    allowed = UNRESERVED if any_case else _HOST
    end = start
    while end < len(text) and text[end] in allowed:
        end += 1
    last = text[start:end].rsplit(".", 1)[-1]
    return end if last and last[0] in ALPHA else start


def _port(text: str, at: int, scheme: str, any_case: bool) -> tuple[int | None, int | None, bool]:
    """The port at ``text[at]``, where the path starts, and whether it is written as is.

    The port is None if there is none or it is the default; the path's start None if the scan
    cannot take the port; written, if the port is as its serialisation writes it. Where
    ``any_case``, any spelling the parse takes: leading zeros, the default, no digits.
    """
    if text[at] != ":":
        return None, at, True
    if scheme not in DEFAULT_PORTS:  # a file URL has no port
        return None, None, False
    end = at + 1
    while end < len(text) and text[end] in DIGIT:
        end += 1
    digits = text[at + 1 : end]
    if len(digits) > 16 or (digits and int(digits) > 65535):
        return None, None, False
    value = int(digits) if digits else None
    default = value == DEFAULT_PORTS[scheme]
    written = bool(digits) and not default and (digits[0] != "0" or len(digits) == 1)
    if not written and not any_case:
        return None, None, False
    return (None if default else value), end, written


def _escape_len(text: str, i: int, asked: frozenset[str], path: bool) -> int:
    """How far the ``%`` at ``text[i]`` takes the scan; 0 where it cannot vouch for the rules."""
    escape = text[i + 1 : i + 3]
    if len(escape) < 2 or escape[0] not in _HEX or escape[1] not in _HEX:
        return 0 if "escapes" in asked else 1
    byte = chr(int(escape, 16))
    if path and byte == ".":
        return 0
    if "escapes" not in asked or "rewrite_escapes" in asked:
        return 3
    return 0 if escape != escape.upper() or byte in UNRESERVED else 3


def _dot_segment_after(text: str, i: int) -> bool:
    """Whether a dot segment (``.`` or ``..``) follows the ``/`` at ``text[i]``."""
    segment = text[i + 1 :]
    for end in "/?#":
        segment = segment.split(end, 1)[0]
    return segment in (".", "..")


def _part_end(text: str, i: int, asked: frozenset[str], part: frozenset[str]) -> int | None:
    """The end of the part from ``text[i]``; None at a character the parse or rules would change."""
    while i < len(text):
        c = text[i]
        step = 1 if c in part else 0
        if c == "%":
            step = _escape_len(text, i, asked, part is _PATH)
        elif c == "/" and part is _PATH:
            step = 0 if _dot_segment_after(text, i) and "dot_segments" not in asked else 1
        elif (c == "#" and part is not _FRAGMENT) or (c == "?" and part is _PATH):
            break
        if not step:
            return None
        i += step
    return i


def _query_and_fragment(
    text: str, at: int, asked: frozenset[str]
) -> tuple[str | None, str | None] | None:
    """The query and fragment after the path's end at ``at``; None if either would change."""
    query: str | None = None
    if text[at : at + 1] == "?":
        end = _part_end(text, at + 1, asked, _QUERY)
        if end is None:
            return None
        query, at = text[at + 1 : end], end
    if at == len(text):
        return query, None
    if _part_end(text, at + 1, asked, _FRAGMENT) != len(text):
        return None
    return query, text[at + 1 :]


def _meets_crawl_rules(spans: Spans, path: str, asked: frozenset[str]) -> bool:
    """Whether what each crawl rule asked for is absent, the path read as written (``path``).

    Removing dot segments can leave a trailing slash (``/a/b/..`` is ``/a/``).
    """
    trailing_slash = (len(path) > 1 and path.endswith("/")) or not spans.segments_written
    return not (
        ("no_query" in asked and spans.query is not None)
        or ("no_fragment" in asked and spans.fragment is not None)
        or ("no_www" in asked and spans.host.startswith("www"))
        or ("not_https" in asked and spans.scheme == "https")
        or ("no_trailing_slash" in asked and trailing_slash)
        or ("no_path_parameters" in asked and (";" in path or "(" in path))
    )

"""Reference resolution: RFC 3986 §5.2 (strict and non-strict) and the URL Standard.

The URL Specification names RFC 3986's strict algorithm *generic resolution* and its
non-strict one *legacy resolution*; browsers use *WHATWG resolution*, which is the basic URL
parser run with a base. RFC 3986 §5.2.4 (not the 1997 draft's Appendix C) governs ``..``
above the root: ``../../../g`` against ``http://a/b/c/d;p?q`` is ``http://a/g``.
"""

from __future__ import annotations

from dataclasses import replace

from . import errors, whatwg
from .errors import URLError
from .path import remove_dot_segments
from .record import URL, serialize
from .split import split_generic

MODES = ("rfc3986", "legacy", "whatwg")


def merge(base: URL, ref_path: str) -> str:
    """RFC 3986 §5.2.3: append a relative path to the base path's directory.

    >>> merge(URL(host="a", path=""), "g"), merge(URL(path="/b/c/d;p"), "g")
    ('/g', '/b/c/g')
    """
    if base.host is not None and base.path == "":
        return "/" + ref_path
    return base.path[: base.path.rfind("/") + 1] + ref_path


def _target_path(base: URL, ref: URL) -> tuple[str, str | None]:
    if ref.path == "":
        return base.path, base.query if ref.query is None else ref.query
    if ref.path.startswith("/"):
        return remove_dot_segments(ref.path), ref.query
    return remove_dot_segments(merge(base, ref.path)), ref.query


def resolve_generic(base: URL, ref: URL, *, strict: bool = True) -> URL:
    """RFC 3986 §5.2.2 "Transform References" on split records.

    With ``strict=False`` a reference whose scheme equals the base's is treated as relative
    (the non-strict variant of §5.2.2, the URL Specification's legacy resolution).

    >>> str(resolve_generic(split_generic("http://a/b/c/d;p?q"), split_generic("../g")))
    'http://a/b/g'
    """
    if base.scheme is None:
        raise URLError(errors.INVALID_BASE, str(base), "base URI has no scheme")
    same_scheme = ref.scheme is not None and ref.scheme.lower() == base.scheme.lower()
    if not strict and same_scheme:
        ref = replace(ref, scheme=None)
    if ref.scheme is not None:
        return replace(ref, path=remove_dot_segments(ref.path))
    if ref.host is not None:
        return replace(ref, scheme=base.scheme, path=remove_dot_segments(ref.path))
    path, query = _target_path(base, ref)
    return replace(base, path=path, query=query, fragment=ref.fragment)


def resolve_whatwg(base: str, ref: str) -> URL:
    """WHATWG resolution: the basic URL parser with ``base`` (URL Standard §4.4).

    >>> str(resolve_whatwg("http://a/b/c/d;p?q", "../../../g"))
    'http://a/g'
    """
    try:
        parsed_base = whatwg.parse(base)
    except URLError as exc:
        raise URLError(errors.INVALID_BASE, base, exc.code) from None
    return whatwg.parse(ref, parsed_base).to_record()


def join(base: str, ref: str, mode: str = "whatwg") -> str:
    """Resolve ``ref`` against ``base`` in mode ``rfc3986``, ``legacy`` or ``whatwg``.

    >>> join("http://a/b/c/d;p?q", "http:g", mode="rfc3986")
    'http:g'
    >>> join("http://a/b/c/d;p?q", "http:g", mode="legacy")
    'http://a/b/c/g'
    """
    if mode == "whatwg":
        return serialize(resolve_whatwg(base, ref))
    if mode not in MODES:
        raise URLError(errors.UNKNOWN_MODE, mode, f"modes are {', '.join(MODES)}")
    resolved = resolve_generic(split_generic(base), split_generic(ref), strict=mode == "rfc3986")
    return serialize(resolved)

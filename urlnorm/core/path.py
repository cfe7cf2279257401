"""Path segments: dot-segment removal (RFC 3986 §5.2.4) and the URL Standard's path rules.

The URL Standard also counts ``%2e`` as a dot (§4.1 "single-dot URL path segment") and treats a
Windows drive letter (``C:``, ``C|``) in file URLs as a root that ``..`` cannot leave.
"""

from __future__ import annotations

import string

SINGLE_DOT = frozenset((".", "%2e"))
DOUBLE_DOT = frozenset(("..", ".%2e", "%2e.", "%2e%2e"))


def is_single_dot(segment: str) -> bool:
    """Whether ``segment`` is ``.`` or ``%2e`` (case-insensitive) (URL Standard §4.1).

    >>> is_single_dot("%2E"), is_single_dot("..")
    (True, False)
    """
    return segment.lower() in SINGLE_DOT


def is_double_dot(segment: str) -> bool:
    """Whether ``segment`` is ``..`` spelled with any mix of ``.`` and ``%2e`` (§4.1).

    >>> is_double_dot(".%2E"), is_double_dot("...")
    (True, False)
    """
    return segment.lower() in DOUBLE_DOT


def is_windows_drive_letter(text: str, *, normalized: bool = False) -> bool:
    """An ASCII letter then ``:`` (or ``|`` unless ``normalized``) (URL Standard §4.2).

    >>> is_windows_drive_letter("c|"), is_windows_drive_letter("c|", normalized=True)
    (True, False)
    """
    seps = ":" if normalized else ":|"
    return len(text) == 2 and text[0] in string.ascii_letters and text[1] in seps


def starts_with_windows_drive_letter(text: str) -> bool:
    """A drive letter followed by the end or one of ``/ \\ ? #`` (URL Standard §4.2).

    >>> starts_with_windows_drive_letter("c:/x"), starts_with_windows_drive_letter("c:x")
    (True, False)
    """
    return is_windows_drive_letter(text[:2]) and (len(text) == 2 or text[2] in "/\\?#")


def normalize_drive_letter(path: str) -> str:
    """Write a leading drive letter ``/C|`` as ``/C:``, as the URL parser reads it back.

    URL Standard §4.4 path state: a file URL's first segment that is a Windows drive letter
    gets ``:``. A rule after the parse (decoding ``/%43|``) can make one the parse did not see.

    >>> [normalize_drive_letter(p) for p in ("/C|/x", "/C|x", "/a/C|")]
    ['/C:/x', '/C|x', '/a/C|']
    """
    if path[:1] == "/" and is_windows_drive_letter(path[1:3]) and path[3:4] in ("", "/"):
        return f"/{path[1]}:{path[3:]}"
    return path


def without_trailing_slashes(path: str) -> str:
    """``path`` without its trailing ``/``s, but ``/`` if nothing else remains.

    All of them, so that dropping them is idempotent (``/a//`` would give ``/a/``, then ``/a``).
    Only a path of segments: in an opaque path (``sc:a/ /``, URL Standard §4.1) ``/`` divides
    nothing, and dropping it could leave a trailing space that the parser strips on reading.

    >>> [without_trailing_slashes(p) for p in ("/a/b/", "/a//", "///", "/", "", "a/ /")]
    ['/a/b', '/a', '/', '/', '', 'a/ /']
    """
    if path[:1] != "/":
        return path
    return path.rstrip("/") or "/"


def remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4: remove ``.`` and ``..`` segments, never climbing above the root.

    >>> remove_dot_segments("/a/b/c/./../../g"), remove_dot_segments("mid/content=5/../6")
    ('/a/g', 'mid/6')
    """
    segments = path.split("/")
    out: list[str] = []
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == "..":
            if len(out) > 1 or (out and out[0] != ""):
                out.pop()
            if last:
                out.append("")
        elif seg == ".":
            if last:
                out.append("")
        else:
            out.append(seg)
    return _rejoin(out, absolute=path.startswith("/"))


def _rejoin(segments: list[str], *, absolute: bool) -> str:
    joined = "/".join(segments)
    if absolute and not joined.startswith("/"):
        return "/" + joined
    return joined


def segments(path: str) -> list[str]:
    """The segments of a path: ``/a/b/`` is ``['a', 'b', '']``; an opaque path is one segment.

    >>> segments("/a/b/"), segments("/"), segments("")
    (['a', 'b', ''], [''], [])
    """
    if path == "":
        return []
    return path.removeprefix("/").split("/")


def depth(path: str) -> int:
    """How many non-empty segments a path has.

    >>> depth("/a//b/"), depth("/")
    (2, 0)
    """
    return sum(1 for segment in segments(path) if segment)


def file_extension(path: str) -> str | None:
    """The extension of the last segment (after its last dot, not a leading one), or null.

    >>> file_extension("/a/b.tar.gz"), file_extension("/a/.bashrc"), file_extension("/a/")
    ('gz', None, None)
    """
    last = segments(path)[-1] if path else ""
    stem, dot, ext = last.rpartition(".")
    return ext if dot and stem and ext else None

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

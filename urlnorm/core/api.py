"""The scalar API: one URL at a time, on the reference core."""

from __future__ import annotations

from .profile_files import get_profile
from .profiles import Profile, Step
from .record import URL
from .resolve import join as _join
from .split import split as _split


def split(url: str, mode: str = "whatwg") -> URL:
    """Split ``url`` into the URL record (parser mode ``whatwg`` or ``generic``).

    ``whatwg`` parses as a browser does; ``generic`` is the RFC 3986 Appendix B split, which
    changes nothing. Raises :class:`URLError` for a URL the mode cannot parse.

    >>> split("HTTPS://Example.COM:443/a?b#c")
    URL(scheme='https', username=None, password=None, host='example.com', port=None, \
path='/a', query='b', fragment='c')
    """
    return _split(url, mode)


def normalize(url: str, profile: str | Profile = "rfc3986") -> str:
    """Normalise ``url`` by ``profile`` (a name or a :class:`Profile`).

    >>> normalize("HTTP://Example.COM:80/%7euser/./a%2fb?q#")
    'http://example.com/~user/a%2Fb?q#'
    >>> normalize("https://EXAMPLE.com/a/../b c", profile="whatwg")
    'https://example.com/b%20c'
    """
    return get_profile(profile).normalize(url)


def join(base: str, ref: str, mode: str = "whatwg") -> str:
    """Resolve ``ref`` against ``base`` (mode ``whatwg``, ``rfc3986`` or ``legacy``).

    >>> join("http://a/b/c/d;p?q", "../../../g", mode="rfc3986")
    'http://a/g'
    """
    return _join(base, ref, mode)


def explain(url: str, profile: str | Profile = "rfc3986") -> list[Step]:
    """List each step of ``profile`` that changed ``url``, with the URL before and after.

    >>> [s.rule for s in explain("HTTP://a:80/./b")]
    ['lowercase_scheme', 'remove_dot_segments', 'drop_default_port']
    """
    return get_profile(profile).explain(url)

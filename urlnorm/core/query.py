"""Query strings as ``&``-separated parameters, split and joined without decoding anything.

Keys are compared as written (case-insensitively, never percent-decoded), so ``a%3Db`` stays a
value and ``mysid`` is not ``sid``. Order is kept unless a rule sorts it.
"""

from __future__ import annotations

from collections.abc import Callable


def parameters(query: str) -> list[str]:
    """The ``&``-separated parameters of a query, empty ones included.

    >>> parameters("a=1&&b=%26")
    ['a=1', '', 'b=%26']
    """
    return query.split("&")


def key(parameter: str) -> str:
    """The key of a parameter: what precedes its first ``=``.

    >>> key("utm_source=x=y"), key("flag")
    ('utm_source', 'flag')
    """
    return parameter.partition("=")[0]


def name_matches(name: str, names: frozenset[str], prefixes: tuple[str, ...]) -> bool:
    """Whether ``name`` is one of ``names`` or starts with one of ``prefixes`` (ignoring case).

    >>> name_matches("UTM_Source", frozenset(), ("utm_",))
    True
    >>> name_matches("mysid", frozenset({"sid"}), ())
    False
    """
    lowered = name.lower()
    return lowered in names or lowered.startswith(prefixes)


def filter_parameters(query: str, keep: Callable[[str], bool]) -> str:
    """Keep the parameters for which ``keep`` is true, in order.

    >>> filter_parameters("a=1&b=2&c", lambda p: key(p) != "b")
    'a=1&c'
    """
    return "&".join(p for p in parameters(query) if keep(p))


def sort_parameters(query: str) -> str:
    """Sort parameters by key, stably: values of a repeated key keep their order.

    >>> sort_parameters("b=2&a=9&b=1")
    'a=9&b=2&b=1'
    """
    return "&".join(sorted(parameters(query), key=key))

"""Query strings as ``&``-separated parameters, split and joined without decoding anything.

Keys are compared as written (case-insensitively, never percent-decoded), so ``a%3Db`` stays a
value and ``mysid`` is not ``sid``. Order is kept unless a rule sorts it.
"""

from __future__ import annotations

from collections.abc import Callable

from .percent import decode_form_component


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


def form_pairs(query: str) -> list[tuple[str, str]]:
    """The URL Standard's ``application/x-www-form-urlencoded`` parser (§5.1), in order.

    ``+`` is a space and escapes are decoded as UTF-8 (invalid bytes become U+FFFD).

    >>> form_pairs("a=1&b=x+y%21&&c&a=%E2%82%AC")
    [('a', '1'), ('b', 'x y!'), ('c', ''), ('a', '€')]
    """
    pairs = []
    for part in parameters(query):
        if part:
            name, _, value = part.partition("=")
            pairs.append((decode_form_component(name), decode_form_component(value)))
    return pairs


def select_parameters(query: str, names: frozenset[str], *, keep: bool) -> str | None:
    """The query with only (``keep``) or without the parameters whose raw key is in ``names``.

    Nothing is decoded or reordered; an emptied query is null.

    >>> select_parameters("a=1&utm=2&b", frozenset({"utm"}), keep=False)
    'a=1&b'
    >>> select_parameters("a=1&utm=2", frozenset({"utm"}), keep=True)
    'utm=2'
    """
    kept = filter_parameters(query, lambda p: (key(p) in names) == keep and p != "")
    return kept or None

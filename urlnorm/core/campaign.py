"""Campaign attribution: which campaign brought a visit, read from its landing page's query.

The fields are Google Analytics' campaign parameters (``utm_source``, ``utm_medium``,
``utm_campaign``, ``utm_term``, ``utm_content``, ``utm_id``) and the click id an ad network
appends to its links. The query is read as a form is (URL Standard §5.1: ``+`` is a space,
escapes decoded as UTF-8). As Snowplow's campaign attribution enrichment has it, each field
may be given its own parameter names, tried in order; the first name present gives the field
its first value. An empty value says nothing, so the next name is tried.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType

from .errors import URLError
from .query import form_pairs
from .whatwg import parse

# Each text field's parameters, in the order they are tried.
UTM: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "source": ("utm_source",),
        "medium": ("utm_medium",),
        "campaign": ("utm_campaign",),
        "term": ("utm_term",),
        "content": ("utm_content",),
        "id": ("utm_id",),
    }
)
# Click ids, in the order they are tried, and the network each names (the networks'
# documentation of their auto-tagging parameters).
CLICK_IDS: Mapping[str, str] = MappingProxyType(
    {
        "gclid": "Google",
        "gbraid": "Google",
        "wbraid": "Google",
        "dclid": "DoubleClick",
        "msclkid": "Microsoft",
        "fbclid": "Meta",
        "ttclid": "TikTok",
        "twclid": "X",
        "li_fat_id": "LinkedIn",
        "ScCid": "Snapchat",
        "yclid": "Yandex",
    }
)
GOOGLE_CLICK_IDS = frozenset(name for name, network in CLICK_IDS.items() if network == "Google")


@dataclass(frozen=True)
class Campaign:
    """A visit's campaign: the utm fields, and the click id with its network."""

    source: str | None = None
    medium: str | None = None
    campaign: str | None = None
    term: str | None = None
    content: str | None = None
    id: str | None = None
    click_id: str | None = None
    network: str | None = None


FIELDS = tuple(f.name for f in fields(Campaign))


@dataclass(frozen=True)
class Parameters:
    """The parameter names each field is read from: ``text`` by field, ``click_ids`` by name."""

    text: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: UTM)
    click_ids: Mapping[str, str] = field(default_factory=lambda: CLICK_IDS)


def parameters_of(given: Mapping[str, Sequence[str] | Mapping[str, str]] | None) -> Parameters:
    """The parameters ``given`` (a field's names, or ``click_id``'s name-to-network mapping).

    A field not given keeps its default names; an unknown field is an error.

    >>> parameters_of({"source": ["src", "utm_source"]}).text["source"]
    ('src', 'utm_source')
    >>> parameters_of({"click_id": {"gclid": "Google"}}).click_ids
    {'gclid': 'Google'}
    """
    if not given:
        return Parameters()
    unknown = set(given) - {*UTM, "click_id"}
    if unknown:
        raise ValueError(f"unknown campaign field {sorted(unknown)[0]!r}; choose from {FIELDS}")
    text = dict(UTM)
    for name, names in given.items():
        if name != "click_id":
            if isinstance(names, (str, Mapping)):
                raise ValueError(f"campaign field {name!r}: give a list of parameter names")
            text[name] = tuple(names)
    ids = given.get("click_id", CLICK_IDS)
    if not isinstance(ids, Mapping):
        raise ValueError("campaign field 'click_id': give a mapping of parameter name to network")
    return Parameters(MappingProxyType(text), dict(ids))


def _first_values(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """Each name's first non-empty value."""
    first: dict[str, str] = {}
    for name, value in pairs:
        if value and name not in first:
            first[name] = value
    return first


def from_query(query: str | None, params: Parameters = Parameters()) -> Campaign:
    """The campaign a query names (its fields null where it names none).

    >>> from_query("utm_source=news+letter&utm_medium=email&gclid=abc").source
    'news letter'
    >>> from_query("gclid=abc&fbclid=x").network
    'Google'
    """
    values = _first_values(form_pairs(query or ""))
    found = {
        name: next((values[n] for n in names if n in values), None)
        for name, names in params.text.items()
    }
    click = next((n for n in params.click_ids if n in values), None)
    if click is not None:
        found.update(click_id=values[click], network=params.click_ids[click])
    return Campaign(**found)


def campaign(url: str, params: Parameters = Parameters()) -> Campaign | None:
    """The campaign of a landing page URL; None for an invalid URL.

    >>> campaign("https://shop.example/?utm_campaign=spring%20sale&msclkid=9").campaign
    'spring sale'
    >>> campaign("https://shop.example/").source is None, campaign("http://[1") is None
    (True, True)
    """
    try:
        query = parse(url).query
    except URLError:
        return None
    return from_query(query, params)

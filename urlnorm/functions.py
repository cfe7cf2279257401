"""The column functions: the one place each is declared, and every front-end's source.

An entry names the function, the batch function that runs it (a Series in, a Series out, in
:mod:`urlnorm.engine.batch`), its parameters with their one default, its output type and its
documentation. The Polars ``url`` namespaces, :mod:`urlnorm.arrow`, the SQL functions of
:mod:`urlnorm.sql` (DuckDB, Spark SQL), the Spark and Ray helpers, the command line's
``--columns`` and the README's table of functions are all made from :data:`FUNCTIONS`.

Light on purpose (no Polars here): the command line lists the names before it loads Polars.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from urlnorm.core.filters import Filters
from urlnorm.core.outputs import DEFAULT_FIELDS

# What a parameter holds. SQL takes those in SQL_KINDS as arguments; the others are Python
# objects (a profile object, providers), a choice of output shape (``fields``), or strict
# mode, which SQL never has: a bad row gives NULL and its code, never a failed query.
KINDS = (
    "profile",
    "mode",
    "text",
    "flag",
    "count",
    "names",
    "file",
    "url",
    "strict",
    "fields",
    "providers",
    "mapping",
)
SQL_KINDS = ("profile", "mode", "text", "flag", "count", "names", "file", "url")
# The Python annotation of each kind, as a generated signature shows it.
ANNOTATIONS = {
    "profile": "str | Profile",
    "mode": "str",
    "text": "str",
    "flag": "bool",
    "count": "int",
    "names": "Sequence[str]",
    "file": "str | Path | None",
    "url": "str | column",
    "strict": "bool",
    "fields": "Sequence[str]",
    "providers": "Sequence[Provider]",
    "mapping": "Mapping[str, Sequence[str] | Mapping[str, str]] | None",
}
# Output types: scalars, lists, and the structs the engine defines (by name).
SCALARS = ("str", "bool", "u16", "u32", "u64")
RETURNS = (
    *SCALARS,
    "list[str]",
    "params",
    "record",
    "cc_index",
    "fields",
    "referrer",
    "campaign",
    "source_medium",
)
# The structs whose fields are all text, which the command line writes as a column a field.
TEXT_STRUCTS = ("referrer", "campaign", "source_medium")
REQUIRED: Any = object()  # the default of a parameter that has none


@dataclass(frozen=True)
class Parameter:
    """One parameter: its name, kind, default, and whether it may be given by position."""

    name: str
    kind: str
    default: Any = REQUIRED
    positional: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: unknown parameter kind {self.kind!r}")

    @property
    def required(self) -> bool:
        """Whether the parameter has no default."""
        return self.default is REQUIRED

    def annotation(self, other: str) -> str:
        """Its Python type as a signature shows it (``other``: a second URL column's).

        >>> Parameter("profile", "profile", None).annotation("str")
        'str | Profile | None'
        """
        shown = other if self.kind == "url" else ANNOTATIONS[self.kind]
        return f"{shown} | None" if self.default is None and "None" not in shown else shown

    @property
    def in_sql(self) -> bool:
        """Whether SQL takes it as an argument (else SQL always passes its default)."""
        return self.kind in SQL_KINDS


@dataclass(frozen=True)
class ColumnFunction:
    """One column function: ``run`` names its batch function in :mod:`urlnorm.engine.batch`."""

    name: str
    run: str
    returns: str
    parameters: tuple[Parameter, ...]
    doc: str

    def __post_init__(self) -> None:
        if self.returns not in RETURNS:
            raise ValueError(f"{self.name}: unknown output type {self.returns!r}")

    @property
    def summary(self) -> str:
        """The documentation's first line."""
        return self.doc.strip().splitlines()[0]

    @property
    def other_url(self) -> Parameter | None:
        """The second URL column the function takes (``join``'s base), if it takes one."""
        return next((p for p in self.parameters if p.kind == "url"), None)

    @property
    def url_only(self) -> bool:
        """Whether it needs nothing but the URL column (every parameter has its default)."""
        return all(not p.required for p in self.parameters)

    def defaults(self) -> dict[str, Any]:
        """Each parameter's default, by name (those with one)."""
        return {p.name: p.default for p in self.parameters if not p.required}


def _p(name: str, kind: str, default: Any = REQUIRED, positional: bool = True) -> Parameter:
    return Parameter(name, kind, default, positional)


def _kw(name: str, kind: str, default: Any) -> Parameter:
    return Parameter(name, kind, default, positional=False)


_STRICT = _kw("strict", "strict", False)
_INVALID_UTF8 = _kw("invalid_utf8", "text", "error")
_MODE = _p("mode", "mode", "whatwg")
_PSL = (
    _kw("include_private", "flag", True),
    _kw("host_form", "text", "ascii"),
    _kw("psl", "file", None),
)
_SURT = (_kw("with_scheme", "flag", False), _kw("trailing_comma", "flag", False))
# The crawl filters' thresholds and lists, with the defaults of urlnorm.core.filters.
_FILTER_DEFAULTS = Filters()
_FILTERS = (
    _kw("max_length", "count", _FILTER_DEFAULTS.max_length),
    _kw("max_depth", "count", _FILTER_DEFAULTS.max_depth),
    _kw("max_repeats", "count", _FILTER_DEFAULTS.max_repeats),
    _kw("schemes", "names", _FILTER_DEFAULTS.schemes),
    _kw("extensions", "names", _FILTER_DEFAULTS.extensions),
)
_SITE = (_p("other", "url"), _kw("by", "text", "site"), _kw("psl", "file", None))
# A referrer database and the hosts that are internal (urlnorm.core.referrers).
_REFERRERS = (_kw("internal", "names", ()), _kw("referrers", "file", None))


def _f(name: str, returns: str, doc: str, *parameters: Parameter, run: str = "") -> ColumnFunction:
    return ColumnFunction(name, run or name, returns, parameters, doc)


def _component(name: str, returns: str, what: str) -> ColumnFunction:
    doc = f"""The {what} of each URL, from its split in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.{name}().to_list()[0] is not None
    True
    """
    return _f(name, returns, doc, _MODE, run="component")


def _domain(name: str, what: str, example: str) -> ColumnFunction:
    doc = f"""{what}, from the Public Suffix List.

    ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
    ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.{name}().to_list()
    [{example!r}, None]
    """
    return _f(name, "str", doc, *_PSL, run="domain_part")


FUNCTIONS: tuple[ColumnFunction, ...] = (
    _f(
        "normalize",
        "str",
        """Normalise each URL by ``profile`` (as :func:`urlnorm.normalize`); invalid rows null.

        A Binary column is read as UTF-8; a row that is not gets null and ``invalid-UTF-8``,
        or with ``invalid_utf8="encode"`` its undecodable bytes are percent-encoded.
        ``strict=True`` raises :class:`urlnorm.URLError` naming the first bad row instead.

        >>> import polars as pl, urlnorm
        >>> urls = pl.Series(["HTTP://Example.com:80", "https://a/%7e", "http://[1"])
        >>> urls.url.normalize("canonical").to_list()
        ['http://example.com/', 'https://a/~', None]
        """,
        _p("profile", "profile", "rfc3986"),
        _STRICT,
        _INVALID_UTF8,
    ),
    _f(
        "parse",
        "fields",
        """Every output a job needs from one normalisation of each URL, as a struct.

        ``fields`` are any of ``normalized``, ``error``, the URL record's fields of the
        normalised URL (``scheme`` … ``fragment``, ``port`` a UInt16), ``surt`` (its SURT key;
        ``with_scheme`` and ``trailing_comma`` as for ``surt``) and ``key_hash`` (UInt64,
        FNV-1a of the normalised URL). Each row is parsed and normalised once, however many
        fields are asked for. In SQL, whose types are fixed when a function is registered,
        ``url_parse`` gives ``normalized``, ``error``, the record and ``key_hash``.

        >>> import polars as pl, urlnorm
        >>> urls = pl.Series("u", ["HTTP://A.com:80/x?b=1", "http://a:99999/"])
        >>> urls.url.parse("canonical", ["normalized", "error", "host"]).struct.unnest().rows()
        [('http://a.com/x?b=1', None, 'a.com'), (None, 'port-out-of-range', None)]
        """,
        _p("profile", "profile", "canonical"),
        _p("fields", "fields", DEFAULT_FIELDS),
        _STRICT,
        _INVALID_UTF8,
        *_SURT,
    ),
    _f(
        "split",
        "record",
        """Split each URL into the URL record struct (as :func:`urlnorm.split`).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTPS://Example.com:8443/p?q#f"]).url.split().struct.unnest().row(0)
        ('https', None, None, 'example.com', 8443, '/p', 'q', 'f')
        """,
        _MODE,
        _STRICT,
        _INVALID_UTF8,
    ),
    _f(
        "join",
        "str",
        """Resolve each reference against ``base``, a literal or a column (:func:`urlnorm.join`).

        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"ref": ["../g", "?y"], "base": ["http://a/b/c/d", "http://a/b"]})
        >>> df.select(pl.col("ref").url.join(pl.col("base")))["ref"].to_list()
        ['http://a/b/g', 'http://a/b?y']
        """,
        _p("base", "url"),
        _MODE,
        _STRICT,
    ),
    _f(
        "key",
        "str",
        """The deduplication key of each URL: its normal form under ``profile``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://A.com:80/x#f", "http://a.com/x"]).url.key("crawl").to_list()
        ['http://a.com/x', 'http://a.com/x']
        """,
        _p("profile", "profile", "canonical"),
        _STRICT,
    ),
    _f(
        "key_hash",
        "u64",
        """The 64-bit FNV-1a hash of each URL's key under ``profile`` (null if invalid).

        >>> import polars as pl, urlnorm
        >>> hashes = pl.Series(["HTTP://A.com:80/x", "http://a.com/x"]).url.key_hash()
        >>> hashes[0] == hashes[1]
        True
        """,
        _p("profile", "profile", "canonical"),
    ),
    _f(
        "surt",
        "str",
        """The SURT key of each URL (as :func:`urlnorm.surt`), e.g. ``com,example)/a``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://www.Example.com/a?b=2&a=1"]).url.surt().to_list()
        ['com,example)/a?a=1&b=2']
        """,
        _p("profile", "profile", "crawl"),
        *_SURT,
        _STRICT,
    ),
    _f(
        "explain",
        "list[str]",
        """Per row, the names of the rules (and parse step) that changed it.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a.com:80/x", "http://a.com/x"]).url.explain("rfc3986").to_list()
        [['lowercase_scheme', 'drop_default_port'], []]
        """,
        _p("profile", "profile", "canonical"),
    ),
    _domain(
        "registered_domain", "The registered domain (eTLD+1) of each domain host", "example.co.uk"
    ),
    _domain("public_suffix", "The public suffix of each domain host", "co.uk"),
    _domain("subdomain", "What precedes the registered domain (``''`` if nothing)", "www.a"),
    _domain("domain_label", "The registered domain's own label", "example"),
    _domain("tld", "The last label of each domain host", "uk"),
    _f(
        "host_type",
        "str",
        """``domain``, ``ipv4``, ``ipv6`` or ``opaque``; null without a host or if invalid.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a.com/", "http://[::1]/", "http://1.2.3.4/"]).url.host_type().to_list()
        ['domain', 'ipv6', 'ipv4']
        """,
    ),
    _f(
        "host_unicode",
        "str",
        """The host with U-labels (UTS #46 ToUnicode).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://xn--bcher-kva.de/"]).url.host_unicode().to_list()
        ['bücher.de']
        """,
    ),
    _f(
        "host_ascii",
        "str",
        """The host with A-labels, as ``host`` gives it in ``whatwg`` mode.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://bücher.de/"]).url.host_ascii().to_list()
        ['xn--bcher-kva.de']
        """,
    ),
    _f(
        "host",
        "str",
        """The serialised host of each URL: A-label domain, dotted IPv4 or ``[IPv6]``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://BÜCHER.de/", "http://0x7f.1/"]).url.host().to_list()
        ['xn--bcher-kva.de', '127.0.0.1']
        """,
        _MODE,
    ),
    _component("scheme", "str", "scheme (lower-case in ``whatwg`` mode)"),
    _component("port", "u16", "port (null when absent or the scheme's default)"),
    _component("path", "str", "path"),
    _component("query", "str", "query (null without ``?``, empty for a bare ``?``)"),
    _component("fragment", "str", "fragment (null without ``#``, empty for a bare ``#``)"),
    _f(
        "filter_reason",
        "str",
        """The first reason to keep each URL out of a crawl, or null (:mod:`urlnorm.core.filters`).

        ``invalid-url``, ``non-web-scheme``, ``too-long``, ``private-address``, ``local-name``,
        ``binary-file``, ``trap-depth``, ``trap-repeated-segment`` or ``trap-calendar``.

        >>> import polars as pl, urlnorm
        >>> urls = pl.Series(["https://a.com/p", "http://10.0.0.1/", "https://a.com/x.zip"])
        >>> urls.url.filter_reason().to_list()
        [None, 'private-address', 'binary-file']
        """,
        *_FILTERS,
    ),
    _f(
        "is_crawlable",
        "bool",
        """Whether no filter keeps the URL out (``filter_reason``'s settings); null for null.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com/p", "ftp://a.com/", None]).url.is_crawlable().to_list()
        [True, False, None]
        """,
        *_FILTERS,
    ),
    _f(
        "unwrap_redirects",
        "str",
        """Each link through a known redirector replaced by its target, as written (no fetch).

        The wrappers of :mod:`urlnorm.core.redirects` (Google, Facebook, Reddit, YouTube,
        Outlook safe links, Proofpoint …) and those ``providers`` declare (a profile file's),
        in chains of up to five; other URLs are unchanged.

        >>> import polars as pl, urlnorm
        >>> links = pl.Series(["https://www.google.com/url?q=https%3A%2F%2Fexample.com%2Fa"])
        >>> links.url.unwrap_redirects().to_list()
        ['https://example.com/a']
        """,
        _p("providers", "providers", ()),
    ),
    _f(
        "same_site",
        "bool",
        """Whether each URL and ``other`` are the same site (``by="site"``) or origin.

        Site: the same registrable domain, or the same host where there is none (HTML's
        "schemelessly same site"); origin: the same scheme, host and port. Null if either URL
        is invalid.

        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"link": ["https://blog.a.co.uk/x", "http://b.com/"], "page": "http://www.a.co.uk/"})
        >>> df.select(pl.col("link").url.same_site(pl.col("page")))["link"].to_list()
        [True, False]
        """,
        *_SITE,
    ),
    _f(
        "is_external",
        "bool",
        """Whether each URL leaves the site (or origin) of ``other``: not ``same_site``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://b.com/"]).url.is_external("https://a.com/").to_list()
        [True]
        """,
        *_SITE,
    ),
    _f(
        "cc_index",
        "cc_index",
        """Common Crawl's columnar index columns (``url_surtkey``, ``url_host_name``, …).

        A struct with the index's names and types, equal to what its converter stores for
        the same URL (:mod:`urlnorm.core.cc_index`); null for a row that is no absolute URL.

        >>> import polars as pl, urlnorm
        >>> row = pl.Series(["https://myblog.blogspot.com:8443/a?b=1"]).url.cc_index()[0]
        >>> row["url_surtkey"], row["url_host_registered_domain"]
        ('com,blogspot,myblog:8443)/a?b=1', 'blogspot.com')
        """,
    ),
    _f(
        "path_segments",
        "list[str]",
        """The path's segments as a list (``/a/b/`` gives ``a``, ``b``, ``''``).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/x/y/"]).url.path_segments().to_list()
        [['x', 'y', '']]
        """,
    ),
    _f(
        "path_depth",
        "u32",
        """How many non-empty segments the path has.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/x/y/"]).url.path_depth().to_list()
        [2]
        """,
    ),
    _f(
        "file_extension",
        "str",
        """The last segment's extension (``gz`` for ``b.tar.gz``), or null.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/b.tar.gz", "http://a/b"]).url.file_extension().to_list()
        ['gz', None]
        """,
    ),
    _f(
        "query_params",
        "params",
        """The query's decoded ``{key, value}`` pairs, in order (URL Standard §5.1).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=x+y&id=1"]).url.query_params().to_list()
        [[{'key': 'q', 'value': 'x y'}, {'key': 'id', 'value': '1'}]]
        """,
    ),
    _f(
        "query_param",
        "str",
        """The first decoded value of parameter ``name``, or null.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=x+y&q=2"]).url.query_param("q").to_list()
        ['x y']
        """,
        _p("name", "text"),
    ),
    _f(
        "query_param_all",
        "list[str]",
        """Every decoded value of parameter ``name``, in order.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=x+y&id=1&q=%C3%A9"]).url.query_param_all("q").to_list()
        [['x y', 'é']]
        """,
        _p("name", "text"),
    ),
    _f(
        "strip_params",
        "str",
        """The URL without the parameters named (raw keys; nothing decoded or reordered).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?utm_source=x&id=1"]).url.strip_params(["utm_source"]).to_list()
        ['http://a/?id=1']
        """,
        _p("names", "names"),
    ),
    _f(
        "keep_params",
        "str",
        """The URL with only the parameters named (raw keys; nothing decoded or reordered).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?utm_source=x&id=1"]).url.keep_params(["id"]).to_list()
        ['http://a/?id=1']
        """,
        _p("names", "names"),
    ),
    _f(
        "referrer",
        "referrer",
        """Where each visit came from: the referrer URL's ``{medium, source, term}``.

        ``medium`` is Snowplow's: ``search``, ``social``, ``email``, ``paid``, ``chatbot``,
        ``unknown`` for a URL in no list, or ``internal`` for a referrer on ``page``'s host (a
        literal or a column) or on an ``internal`` host (``shop.example``, ``*.example.com``).
        ``source`` is the engine's, network's, mail service's or assistant's name; ``term`` the
        search term, decoded as a form is. A null, empty or invalid referrer gives all fields
        null (see ``url.error``). ``referrers``: a database of one's own, Snowplow's
        ``referers.yml`` or ``.json``, or Matomo's ``SearchEngines.yml`` / ``Socials.yml`` or
        their folder.

        >>> import polars as pl, urlnorm
        >>> refs = pl.Series(["https://www.google.co.uk/search?q=url+norm", "android-app://com.google.android.gm/"])
        >>> refs.url.referrer().to_list()[0]
        {'medium': 'search', 'source': 'Google', 'term': 'url norm'}
        >>> refs.url.referrer().struct.field("source").to_list()
        ['Google', 'Gmail']
        """,
        _p("page", "url", None),
        *_REFERRERS,
    ),
    _f(
        "campaign",
        "campaign",
        """The campaign that brought each landing page: its utm fields and click id.

        ``{source, medium, campaign, term, content, id}`` from ``utm_source`` … ``utm_id``
        (decoded; the first non-empty value), ``click_id`` and its ``network`` from ``gclid``,
        ``gbraid``, ``wbraid`` (Google), ``dclid``, ``msclkid``, ``fbclid``, ``ttclid``,
        ``twclid``, ``li_fat_id``, ``ScCid`` or ``yclid``. ``parameters`` maps a field to the
        names to try in order, as Snowplow's campaign attribution does (``click_id``: name to
        network). Null for an invalid URL.

        >>> import polars as pl, urlnorm
        >>> row = pl.Series(["https://a.example/?utm_source=news&utm_campaign=spring+sale&gclid=Cj0"]).url.campaign()[0]
        >>> row["source"], row["campaign"], row["network"]
        ('news', 'spring sale', 'Google')
        """,
        _kw("parameters", "mapping", None),
    ),
    _f(
        "source_medium",
        "source_medium",
        """Each visit's ``{source, medium, campaign}`` as GA4 derives it from page and referrer.

        A Google click id gives ``google / cpc``; else the utm parameters; else the referrer
        (a search engine ``organic``, an AI assistant ``ai-assistant``, another site
        ``referral``, an internal one null); else ``(direct) / (none)``.

        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"page": ["https://shop.example/"], "ref": ["https://www.bing.com/search?q=x"]})
        >>> df.select(pl.col("page").url.source_medium(pl.col("ref")))["page"].to_list()
        [{'source': 'bing', 'medium': 'organic', 'campaign': '(organic)'}]
        """,
        _p("referrer", "url"),
        *_REFERRERS,
    ),
    _f(
        "channel_group",
        "str",
        """Each visit's GA4 default channel group (``Organic Search``, ``Paid Social`` …).

        From :meth:`source_medium` by GA4's published rules, in their order
        (:mod:`urlnorm.core.channels`); null for an invalid page or an internal referrer.

        >>> import polars as pl, urlnorm
        >>> pages = pl.Series(["https://a.example/?utm_source=facebook&utm_medium=cpc", "https://a.example/"])
        >>> pages.url.channel_group("https://chatgpt.com/").to_list()
        ['Paid Social', 'AI Assistant']
        """,
        _p("referrer", "url"),
        *_REFERRERS,
    ),
    _f(
        "origin",
        "str",
        """The origin browsers give: ``scheme://host[:port]``, or ``null`` (opaque).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com:8443/x", "data:,x"]).url.origin().to_list()
        ['https://a.com:8443', 'null']
        """,
    ),
    _f(
        "netloc",
        "str",
        """The authority of each URL, ``userinfo@host:port`` (RFC 3986 §3.2); null without a host.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u:p@A.com:8443/x", "mailto:a@b"]).url.netloc().to_list()
        ['u:p@a.com:8443', None]
        """,
        run="url_part",
    ),
    _f(
        "path_full",
        "str",
        """The path of each URL with its ``?query`` and ``#fragment``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a.com/p?x=1#f", "http://a.com"]).url.path_full().to_list()
        ['/p?x=1#f', '/']
        """,
        run="url_part",
    ),
    _f(
        "query_and_fragment",
        "str",
        """The query of each URL and its ``#fragment``; null if it has neither.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?x=1#f", "http://a/#f", "http://a/"]).url.query_and_fragment().to_list()
        ['x=1#f', '#f', None]
        """,
        run="url_part",
    ),
    _f(
        "cut_query",
        "str",
        """Each URL serialised without its query (URL Standard §4.5).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_query().to_list()
        ['http://a/p#f']
        """,
        run="url_part",
    ),
    _f(
        "cut_fragment",
        "str",
        """Each URL serialised with "exclude fragment" (URL Standard §4.5).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_fragment().to_list()
        ['http://a/p?x=1']
        """,
        run="url_part",
    ),
    _f(
        "cut_query_and_fragment",
        "str",
        """Each URL serialised without its query and its fragment.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_query_and_fragment().to_list()
        ['http://a/p']
        """,
        run="url_part",
    ),
    _f(
        "domain_without_www",
        "str",
        """The host of each URL without a leading ``www.`` label.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://WWW.a.com/", "http://www2.a.com/"]).url.domain_without_www().to_list()
        ['a.com', 'www2.a.com']
        """,
        run="url_part",
    ),
    _f(
        "cut_www",
        "str",
        """Each URL serialised with its host's leading ``www.`` label removed.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://www.a.com/x?y#z"]).url.cut_www().to_list()
        ['https://a.com/x?y#z']
        """,
        run="url_part",
    ),
    _f(
        "hierarchy",
        "list[str]",
        """Each URL cut after each run of ``/`` in its path, then with its query (no fragment).

        A URL with an opaque path (``mailto:``) has none.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com/b/c?d=1#e"]).url.hierarchy().to_list()
        [['https://a.com/', 'https://a.com/b/', 'https://a.com/b/c', 'https://a.com/b/c?d=1']]
        """,
        run="url_part",
    ),
    _f(
        "path_hierarchy",
        "list[str]",
        """The levels of ``hierarchy`` without the scheme and authority, the root left out.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com/b/c?d=1"]).url.path_hierarchy().to_list()
        [['/b/', '/b/c', '/b/c?d=1']]
        """,
        run="url_part",
    ),
    _f(
        "query_param_names",
        "list[str]",
        """The decoded names of each query's parameters, in order (URL Standard §5.1).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=1&id=2&q=3&%C3%A9"]).url.query_param_names().to_list()
        [['q', 'id', 'q', 'é']]
        """,
    ),
    _f(
        "encode_component",
        "str",
        """Each text percent-encoded as a URL component (URL Standard §1.3, component set).

        What ``encodeURIComponent`` gives: UTF-8, every code point but ASCII letters, digits
        and ``-._~!'()*`` escaped.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a b/é?&=~"]).url.encode_component().to_list()
        ['a%20b%2F%C3%A9%3F%26%3D~']
        """,
        run="percent_coding",
    ),
    _f(
        "decode_component",
        "str",
        """Each text percent-decoded, its bytes read as UTF-8 (U+FFFD for invalid ones).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a%20b%2F%C3%A9+%zz"]).url.decode_component().to_list()
        ['a b/é+%zz']
        """,
        run="percent_coding",
    ),
    _f(
        "encode_form_component",
        "str",
        """Each text as the application/x-www-form-urlencoded serializer writes it (§5.2).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a b/é~*"]).url.encode_form_component().to_list()
        ['a+b%2F%C3%A9%7E*']
        """,
        run="percent_coding",
    ),
    _f(
        "decode_form_component",
        "str",
        """Each text as the application/x-www-form-urlencoded parser reads it (§5.1): ``+`` a space.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a+b%2B%C3%A9"]).url.decode_form_component().to_list()
        ['a b+é']
        """,
        run="percent_coding",
    ),
    _f(
        "error",
        "str",
        """The error code of each invalid URL, null for valid ones and null inputs.

        With ``profile`` the code is that of :func:`urlnorm.normalize`, without it that of
        :func:`urlnorm.split` in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a:99999/", "http://a/", None]).url.error().to_list()
        ['port-out-of-range', None, None]
        """,
        _p("profile", "profile", None),
        _MODE,
        _p("invalid_utf8", "text", "error"),
    ),
    _f(
        "is_valid",
        "bool",
        """Whether each URL parses (null for null input); see ``error``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a:99999/", "http://a/", None]).url.is_valid().to_list()
        [False, True, None]
        """,
        _p("profile", "profile", None),
        _MODE,
        _p("invalid_utf8", "text", "error"),
    ),
)
BY_NAME = {f.name: f for f in FUNCTIONS}
# The doctests of the table's entries, run with this module's.
__test__ = {f.name: f.doc for f in FUNCTIONS}


class Namespace:
    """Every column function as an attribute, each made by ``make`` (Spark's, Ray's ``url``)."""

    def __init__(self, make: Callable[[ColumnFunction], Callable[..., Any]]) -> None:
        for entry in FUNCTIONS:
            setattr(self, entry.name, make(entry))

    def __getattr__(self, name: str) -> Callable[..., Any]:
        """An unknown name: the error lists the column functions."""
        raise AttributeError(f"no column function {name!r}; choose from {', '.join(BY_NAME)}")


def function(name: str) -> ColumnFunction:
    """The column function ``name``; an unknown name is an error listing the known ones.

    >>> function("normalize").defaults()["profile"]
    'rfc3986'
    """
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"no column function {name!r}; choose from {', '.join(BY_NAME)}") from None


def url_only() -> tuple[str, ...]:
    """The functions that need nothing but the URL column."""
    return tuple(
        f.name
        for f in FUNCTIONS
        if f.url_only and (f.other_url is None or not f.other_url.required)
    )


def command_columns() -> tuple[str, ...]:
    """The command line's ``--columns``: functions of the URL alone with text or scalar values.

    A scalar, or a struct of text fields that the job writes as a column each
    (``referrer_medium``), as every output format (CSV and text too) can hold them.

    >>> "registered_domain" in command_columns(), "referrer" in command_columns()
    (True, True)
    >>> "split" in command_columns()
    False
    """
    return tuple(name for name in url_only() if BY_NAME[name].returns in (*SCALARS, *TEXT_STRUCTS))


_SELF = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _parameter(p: Parameter, other: str) -> inspect.Parameter:
    kind = (
        inspect.Parameter.POSITIONAL_OR_KEYWORD if p.positional else inspect.Parameter.KEYWORD_ONLY
    )
    default = inspect.Parameter.empty if p.required else p.default
    return inspect.Parameter(p.name, kind, default=default, annotation=p.annotation(other))


def signature(function: ColumnFunction, other: str, *, method: bool = False) -> inspect.Signature:
    """A column function's Python signature after its URL column (a method's after ``self``).

    ``other`` is how the front-end types a second URL column.

    >>> str(signature(function("query_param"), "str"))
    "(name: 'str')"
    """
    first = [_SELF] if method else []
    return inspect.Signature([*first, *(_parameter(p, other) for p in function.parameters)])


def bound(sig: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """One call's arguments after the URL column, by name, defaults filled in.

    ``sig`` is a method's (:func:`signature` with ``method``); ``args`` follow ``self``.

    >>> bound(signature(function("key"), "str", method=True), ("crawl",), {})
    {'profile': 'crawl', 'strict': False}
    """
    plan = _plan(sig)
    if len(args) <= len(plan.positional):
        given = dict(zip(plan.positional[: len(args)], args, strict=True))
        merged = {**plan.defaults, **given, **kwargs}
        if kwargs.keys().isdisjoint(given) and merged.keys() == plan.names:
            return {name: merged[name] for name in plan.order}
    # A call Python would refuse: inspect's binding raises its TypeError.
    call = sig.bind(None, *args, **kwargs)
    call.apply_defaults()
    return {k: v for k, v in call.arguments.items() if k != "self"}


@dataclass(frozen=True)
class _Plan:
    """A method signature's parameters after ``self``, as :func:`bound` reads them."""

    order: tuple[str, ...]
    positional: tuple[str, ...]
    defaults: dict[str, Any]
    names: frozenset[str]


# Every call binds its arguments: inspect's binding would cost more than a small batch's work.
_PLANS: dict[int, tuple[inspect.Signature, _Plan]] = {}


def _plan(sig: inspect.Signature) -> _Plan:
    kept = _PLANS.get(id(sig))
    if kept is None or kept[0] is not sig:
        params = list(sig.parameters.values())[1:]
        empty, keyword = inspect.Parameter.empty, inspect.Parameter.KEYWORD_ONLY
        plan = _Plan(
            order=tuple(p.name for p in params),
            positional=tuple(p.name for p in params if p.kind != keyword),
            defaults={p.name: p.default for p in params if p.default is not empty},
            names=frozenset(p.name for p in params),
        )
        kept = _PLANS[id(sig)] = (sig, plan)
    return kept[1]


# How the documentation names each output type.
RETURN_NAMES = {
    "str": "text",
    "bool": "boolean",
    "u16": "UInt16",
    "u32": "UInt32",
    "u64": "UInt64",
    "list[str]": "list of text",
    "params": "list of {key, value}",
    "record": "the URL record",
    "cc_index": "the index's columns",
    "fields": "struct of `fields`",
    "referrer": "{medium, source, term}",
    "campaign": "{source, medium, campaign, term, content, id, click_id, network}",
    "source_medium": "{source, medium, campaign}",
}


def shown(value: Any) -> str:
    """A default as the documentation shows it (a long list by its length).

    >>> shown("crawl"), shown(tuple("abcde"))
    ("'crawl'", '(5 names)')
    """
    if isinstance(value, tuple) and len(value) > 4:
        return f"({len(value)} names)"
    return repr(value)


def _python_call(function: ColumnFunction) -> str:
    given = [p.name if p.required else f"{p.name}={shown(p.default)}" for p in function.parameters]
    return f"`{function.name}({', '.join(given)})`"


def sql_call(function: ColumnFunction) -> str:
    """How SQL calls ``function``: the URL, its required arguments, then the optional ones.

    >>> sql_call(function("normalize"))
    '`url_normalize(url [, profile [, invalid_utf8]])`'
    """
    taken = [p for p in function.parameters if p.in_sql]
    required = ["url", *(p.name for p in taken if p.required)]
    optional = [p.name for p in taken if not p.required]
    tail = "".join(f" [, {name}" for name in optional) + "]" * len(optional)
    return f"`url_{function.name}({', '.join(required)}{tail})`"


def markdown_table() -> str:
    """The README's table of column functions, one row each, made from :data:`FUNCTIONS`.

    >>> markdown_table().splitlines()[2].startswith("| `normalize(profile='rfc3986'")
    True
    """
    rows = [
        "| Polars `url.` / `urlnorm.arrow.` / Spark and Ray `url.` | SQL | returns | what |",
        "|---|---|---|---|",
    ]
    for f in FUNCTIONS:
        what = re.sub(r":\w+:`", "`", f.summary).replace("|", "\\|")
        rows.append(f"| {_python_call(f)} | {sql_call(f)} | {RETURN_NAMES[f.returns]} | {what} |")
    return "\n".join(rows) + "\n"

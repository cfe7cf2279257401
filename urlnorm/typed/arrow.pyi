"""The column functions of urlnorm.arrow. Made by ``python -m urlnorm.typed``; not edited by hand."""

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from urlnorm.core.profiles import Profile
from urlnorm.core.providers import Provider

import pyarrow as pa


def normalize(array: pa.Array | pa.ChunkedArray, /, profile: str | Profile = 'rfc3986', *, strict: bool = False, invalid_utf8: str = 'error') -> pa.Array:
    """Normalise each URL by ``profile`` (as :func:`urlnorm.normalize`); invalid rows null.

    A Binary column is read as UTF-8; a row that is not gets null and ``invalid-UTF-8``,
    or with ``invalid_utf8="encode"`` its undecodable bytes are percent-encoded.
    ``strict=True`` raises :class:`urlnorm.URLError` naming the first bad row instead.

    >>> import polars as pl, urlnorm
    >>> urls = pl.Series(["HTTP://Example.com:80", "https://a/%7e", "http://[1"])
    >>> urls.url.normalize("canonical").to_list()
    ['http://example.com/', 'https://a/~', None]
    """


def split(array: pa.Array | pa.ChunkedArray, /, mode: str = 'whatwg', *, strict: bool = False, invalid_utf8: str = 'error') -> pa.Array:
    """Split each URL into the URL record struct (as :func:`urlnorm.split`).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTPS://Example.com:8443/p?q#f"]).url.split().struct.unnest().row(0)
    ('https', None, None, 'example.com', 8443, '/p', 'q', 'f')
    """


def join(array: pa.Array | pa.ChunkedArray, /, base: str | pa.Array | pa.ChunkedArray, mode: str = 'whatwg', *, strict: bool = False) -> pa.Array:
    """Resolve each reference against ``base``, a literal or a column (:func:`urlnorm.join`).

    >>> import polars as pl, urlnorm
    >>> df = pl.DataFrame({"ref": ["../g", "?y"], "base": ["http://a/b/c/d", "http://a/b"]})
    >>> df.select(pl.col("ref").url.join(pl.col("base")))["ref"].to_list()
    ['http://a/b/g', 'http://a/b?y']
    """


def key(array: pa.Array | pa.ChunkedArray, /, profile: str | Profile = 'canonical', *, strict: bool = False) -> pa.Array:
    """The deduplication key of each URL: its normal form under ``profile``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTP://A.com:80/x#f", "http://a.com/x"]).url.key("crawl").to_list()
    ['http://a.com/x', 'http://a.com/x']
    """


def key_hash(array: pa.Array | pa.ChunkedArray, /, profile: str | Profile = 'canonical') -> pa.Array:
    """The 64-bit FNV-1a hash of each URL's key under ``profile`` (null if invalid).

    >>> import polars as pl, urlnorm
    >>> hashes = pl.Series(["HTTP://A.com:80/x", "http://a.com/x"]).url.key_hash()
    >>> hashes[0] == hashes[1]
    True
    """


def surt(array: pa.Array | pa.ChunkedArray, /, profile: str | Profile = 'crawl', *, with_scheme: bool = False, trailing_comma: bool = False, strict: bool = False) -> pa.Array:
    """The SURT key of each URL (as :func:`urlnorm.surt`), e.g. ``com,example)/a``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://www.Example.com/a?b=2&a=1"]).url.surt().to_list()
    ['com,example)/a?a=1&b=2']
    """


def explain(array: pa.Array | pa.ChunkedArray, /, profile: str | Profile = 'canonical') -> pa.Array:
    """Per row, the names of the rules (and parse step) that changed it.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTP://a.com:80/x", "http://a.com/x"]).url.explain("rfc3986").to_list()
    [['lowercase_scheme', 'drop_default_port'], []]
    """


def registered_domain(array: pa.Array | pa.ChunkedArray, /, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pa.Array:
    """The registered domain (eTLD+1) of each domain host, from the Public Suffix List.

    ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
    ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.registered_domain().to_list()
    ['example.co.uk', None]
    """


def public_suffix(array: pa.Array | pa.ChunkedArray, /, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pa.Array:
    """The public suffix of each domain host, from the Public Suffix List.

    ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
    ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.public_suffix().to_list()
    ['co.uk', None]
    """


def subdomain(array: pa.Array | pa.ChunkedArray, /, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pa.Array:
    """What precedes the registered domain (``''`` if nothing), from the Public Suffix List.

    ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
    ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.subdomain().to_list()
    ['www.a', None]
    """


def domain_label(array: pa.Array | pa.ChunkedArray, /, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pa.Array:
    """The registered domain's own label, from the Public Suffix List.

    ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
    ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.domain_label().to_list()
    ['example', None]
    """


def tld(array: pa.Array | pa.ChunkedArray, /, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pa.Array:
    """The last label of each domain host, from the Public Suffix List.

    ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
    ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.tld().to_list()
    ['uk', None]
    """


def host_type(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """``domain``, ``ipv4``, ``ipv6`` or ``opaque``; null without a host or if invalid.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a.com/", "http://[::1]/", "http://1.2.3.4/"]).url.host_type().to_list()
    ['domain', 'ipv6', 'ipv4']
    """


def host_unicode(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The host with U-labels (UTS #46 ToUnicode).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://xn--bcher-kva.de/"]).url.host_unicode().to_list()
    ['bücher.de']
    """


def host_ascii(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The host with A-labels, as ``host`` gives it in ``whatwg`` mode.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://bücher.de/"]).url.host_ascii().to_list()
    ['xn--bcher-kva.de']
    """


def host(array: pa.Array | pa.ChunkedArray, /, mode: str = 'whatwg') -> pa.Array:
    """The serialised host of each URL: A-label domain, dotted IPv4 or ``[IPv6]``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://BÜCHER.de/", "http://0x7f.1/"]).url.host().to_list()
    ['xn--bcher-kva.de', '127.0.0.1']
    """


def scheme(array: pa.Array | pa.ChunkedArray, /, mode: str = 'whatwg') -> pa.Array:
    """The scheme (lower-case in ``whatwg`` mode) of each URL, from its split in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.scheme().to_list()[0] is not None
    True
    """


def port(array: pa.Array | pa.ChunkedArray, /, mode: str = 'whatwg') -> pa.Array:
    """The port (null when absent or the scheme's default) of each URL, from its split in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.port().to_list()[0] is not None
    True
    """


def path(array: pa.Array | pa.ChunkedArray, /, mode: str = 'whatwg') -> pa.Array:
    """The path of each URL, from its split in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.path().to_list()[0] is not None
    True
    """


def query(array: pa.Array | pa.ChunkedArray, /, mode: str = 'whatwg') -> pa.Array:
    """The query (null without ``?``, empty for a bare ``?``) of each URL, from its split in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.query().to_list()[0] is not None
    True
    """


def fragment(array: pa.Array | pa.ChunkedArray, /, mode: str = 'whatwg') -> pa.Array:
    """The fragment (null without ``#``, empty for a bare ``#``) of each URL, from its split in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.fragment().to_list()[0] is not None
    True
    """


def filter_reason(array: pa.Array | pa.ChunkedArray, /, *, max_length: int = 2048, max_depth: int = 20, max_repeats: int = 3, schemes: Sequence[str] = ..., extensions: Sequence[str] = ...) -> pa.Array:
    """The first reason to keep each URL out of a crawl, or null (:mod:`urlnorm.core.filters`).

    ``invalid-url``, ``non-web-scheme``, ``too-long``, ``private-address``, ``local-name``,
    ``binary-file``, ``trap-depth``, ``trap-repeated-segment`` or ``trap-calendar``.

    >>> import polars as pl, urlnorm
    >>> urls = pl.Series(["https://a.com/p", "http://10.0.0.1/", "https://a.com/x.zip"])
    >>> urls.url.filter_reason().to_list()
    [None, 'private-address', 'binary-file']
    """


def is_crawlable(array: pa.Array | pa.ChunkedArray, /, *, max_length: int = 2048, max_depth: int = 20, max_repeats: int = 3, schemes: Sequence[str] = ..., extensions: Sequence[str] = ...) -> pa.Array:
    """Whether no filter keeps the URL out (``filter_reason``'s settings); null for null.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://a.com/p", "ftp://a.com/", None]).url.is_crawlable().to_list()
    [True, False, None]
    """


def unwrap_redirects(array: pa.Array | pa.ChunkedArray, /, providers: Sequence[Provider] = ...) -> pa.Array:
    """Each link through a known redirector replaced by its target, as written (no fetch).

    The wrappers of :mod:`urlnorm.core.redirects` (Google, Facebook, Reddit, YouTube,
    Outlook safe links, Proofpoint …) and those ``providers`` declare (a profile file's),
    in chains of up to five; other URLs are unchanged.

    >>> import polars as pl, urlnorm
    >>> links = pl.Series(["https://www.google.com/url?q=https%3A%2F%2Fexample.com%2Fa"])
    >>> links.url.unwrap_redirects().to_list()
    ['https://example.com/a']
    """


def same_site(array: pa.Array | pa.ChunkedArray, /, other: str | pa.Array | pa.ChunkedArray, *, by: str = 'site', psl: str | Path | None = None) -> pa.Array:
    """Whether each URL and ``other`` are the same site (``by="site"``) or origin.

    Site: the same registrable domain, or the same host where there is none (HTML's
    "schemelessly same site"); origin: the same scheme, host and port. Null if either URL
    is invalid.

    >>> import polars as pl, urlnorm
    >>> df = pl.DataFrame({"link": ["https://blog.a.co.uk/x", "http://b.com/"], "page": "http://www.a.co.uk/"})
    >>> df.select(pl.col("link").url.same_site(pl.col("page")))["link"].to_list()
    [True, False]
    """


def is_external(array: pa.Array | pa.ChunkedArray, /, other: str | pa.Array | pa.ChunkedArray, *, by: str = 'site', psl: str | Path | None = None) -> pa.Array:
    """Whether each URL leaves the site (or origin) of ``other``: not ``same_site``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://b.com/"]).url.is_external("https://a.com/").to_list()
    [True]
    """


def cc_index(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """Common Crawl's columnar index columns (``url_surtkey``, ``url_host_name``, …).

    A struct with the index's names and types, equal to what its converter stores for
    the same URL (:mod:`urlnorm.core.cc_index`); null for a row that is no absolute URL.

    >>> import polars as pl, urlnorm
    >>> row = pl.Series(["https://myblog.blogspot.com:8443/a?b=1"]).url.cc_index()[0]
    >>> row["url_surtkey"], row["url_host_registered_domain"]
    ('com,blogspot,myblog:8443)/a?b=1', 'blogspot.com')
    """


def path_segments(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The path's segments as a list (``/a/b/`` gives ``a``, ``b``, ``''``).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/x/y/"]).url.path_segments().to_list()
    [['x', 'y', '']]
    """


def path_depth(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """How many non-empty segments the path has.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/x/y/"]).url.path_depth().to_list()
    [2]
    """


def file_extension(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The last segment's extension (``gz`` for ``b.tar.gz``), or null.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/b.tar.gz", "http://a/b"]).url.file_extension().to_list()
    ['gz', None]
    """


def query_params(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The query's decoded ``{key, value}`` pairs, in order (URL Standard §5.1).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?q=x+y&id=1"]).url.query_params().to_list()
    [[{'key': 'q', 'value': 'x y'}, {'key': 'id', 'value': '1'}]]
    """


def query_param(array: pa.Array | pa.ChunkedArray, /, name: str) -> pa.Array:
    """The first decoded value of parameter ``name``, or null.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?q=x+y&q=2"]).url.query_param("q").to_list()
    ['x y']
    """


def query_param_all(array: pa.Array | pa.ChunkedArray, /, name: str) -> pa.Array:
    """Every decoded value of parameter ``name``, in order.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?q=x+y&id=1&q=%C3%A9"]).url.query_param_all("q").to_list()
    [['x y', 'é']]
    """


def strip_params(array: pa.Array | pa.ChunkedArray, /, names: Sequence[str]) -> pa.Array:
    """The URL without the parameters named (raw keys; nothing decoded or reordered).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?utm_source=x&id=1"]).url.strip_params(["utm_source"]).to_list()
    ['http://a/?id=1']
    """


def keep_params(array: pa.Array | pa.ChunkedArray, /, names: Sequence[str]) -> pa.Array:
    """The URL with only the parameters named (raw keys; nothing decoded or reordered).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?utm_source=x&id=1"]).url.keep_params(["id"]).to_list()
    ['http://a/?id=1']
    """


def referrer(array: pa.Array | pa.ChunkedArray, /, page: str | pa.Array | pa.ChunkedArray | None = None, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pa.Array:
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
    """


def campaign(array: pa.Array | pa.ChunkedArray, /, *, parameters: Mapping[str, Sequence[str] | Mapping[str, str]] | None = None) -> pa.Array:
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
    """


def source_medium(array: pa.Array | pa.ChunkedArray, /, referrer: str | pa.Array | pa.ChunkedArray, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pa.Array:
    """Each visit's ``{source, medium, campaign}`` as GA4 derives it from page and referrer.

    A Google click id gives ``google / cpc``; else the utm parameters; else the referrer
    (a search engine ``organic``, an AI assistant ``ai-assistant``, another site
    ``referral``, an internal one null); else ``(direct) / (none)``.

    >>> import polars as pl, urlnorm
    >>> df = pl.DataFrame({"page": ["https://shop.example/"], "ref": ["https://www.bing.com/search?q=x"]})
    >>> df.select(pl.col("page").url.source_medium(pl.col("ref")))["page"].to_list()
    [{'source': 'bing', 'medium': 'organic', 'campaign': '(organic)'}]
    """


def channel_group(array: pa.Array | pa.ChunkedArray, /, referrer: str | pa.Array | pa.ChunkedArray, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pa.Array:
    """Each visit's GA4 default channel group (``Organic Search``, ``Paid Social`` …).

    From :meth:`source_medium` by GA4's published rules, in their order
    (:mod:`urlnorm.core.channels`); null for an invalid page or an internal referrer.

    >>> import polars as pl, urlnorm
    >>> pages = pl.Series(["https://a.example/?utm_source=facebook&utm_medium=cpc", "https://a.example/"])
    >>> pages.url.channel_group("https://chatgpt.com/").to_list()
    ['Paid Social', 'AI Assistant']
    """


def origin(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The origin browsers give: ``scheme://host[:port]``, or ``null`` (opaque).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://a.com:8443/x", "data:,x"]).url.origin().to_list()
    ['https://a.com:8443', 'null']
    """


def netloc(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The authority of each URL, ``userinfo@host:port`` (RFC 3986 §3.2); null without a host.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u:p@A.com:8443/x", "mailto:a@b"]).url.netloc().to_list()
    ['u:p@a.com:8443', None]
    """


def path_full(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The path of each URL with its ``?query`` and ``#fragment``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a.com/p?x=1#f", "http://a.com"]).url.path_full().to_list()
    ['/p?x=1#f', '/']
    """


def query_and_fragment(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The query of each URL and its ``#fragment``; null if it has neither.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?x=1#f", "http://a/#f", "http://a/"]).url.query_and_fragment().to_list()
    ['x=1#f', '#f', None]
    """


def cut_query(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """Each URL serialised without its query (URL Standard §4.5).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_query().to_list()
    ['http://a/p#f']
    """


def cut_fragment(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """Each URL serialised with "exclude fragment" (URL Standard §4.5).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_fragment().to_list()
    ['http://a/p?x=1']
    """


def cut_query_and_fragment(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """Each URL serialised without its query and its fragment.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_query_and_fragment().to_list()
    ['http://a/p']
    """


def domain_without_www(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The host of each URL without a leading ``www.`` label.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://WWW.a.com/", "http://www2.a.com/"]).url.domain_without_www().to_list()
    ['a.com', 'www2.a.com']
    """


def cut_www(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """Each URL serialised with its host's leading ``www.`` label removed.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://www.a.com/x?y#z"]).url.cut_www().to_list()
    ['https://a.com/x?y#z']
    """


def hierarchy(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """Each URL cut after each run of ``/`` in its path, then with its query (no fragment).

    A URL with an opaque path (``mailto:``) has none.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://a.com/b/c?d=1#e"]).url.hierarchy().to_list()
    [['https://a.com/', 'https://a.com/b/', 'https://a.com/b/c', 'https://a.com/b/c?d=1']]
    """


def path_hierarchy(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The levels of ``hierarchy`` without the scheme and authority, the root left out.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://a.com/b/c?d=1"]).url.path_hierarchy().to_list()
    [['/b/', '/b/c', '/b/c?d=1']]
    """


def query_param_names(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """The decoded names of each query's parameters, in order (URL Standard §5.1).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?q=1&id=2&q=3&%C3%A9"]).url.query_param_names().to_list()
    [['q', 'id', 'q', 'é']]
    """


def encode_component(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """Each text percent-encoded as a URL component (URL Standard §1.3, component set).

    What ``encodeURIComponent`` gives: UTF-8, every code point but ASCII letters, digits
    and ``-._~!'()*`` escaped.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["a b/é?&=~"]).url.encode_component().to_list()
    ['a%20b%2F%C3%A9%3F%26%3D~']
    """


def decode_component(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """Each text percent-decoded, its bytes read as UTF-8 (U+FFFD for invalid ones).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["a%20b%2F%C3%A9+%zz"]).url.decode_component().to_list()
    ['a b/é+%zz']
    """


def encode_form_component(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """Each text as the application/x-www-form-urlencoded serializer writes it (§5.2).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["a b/é~*"]).url.encode_form_component().to_list()
    ['a+b%2F%C3%A9%7E*']
    """


def decode_form_component(array: pa.Array | pa.ChunkedArray, /) -> pa.Array:
    """Each text as the application/x-www-form-urlencoded parser reads it (§5.1): ``+`` a space.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["a+b%2B%C3%A9"]).url.decode_form_component().to_list()
    ['a b+é']
    """


def error(array: pa.Array | pa.ChunkedArray, /, profile: str | Profile | None = None, mode: str = 'whatwg', invalid_utf8: str = 'error') -> pa.Array:
    """The error code of each invalid URL, null for valid ones and null inputs.

    With ``profile`` the code is that of :func:`urlnorm.normalize`, without it that of
    :func:`urlnorm.split` in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a:99999/", "http://a/", None]).url.error().to_list()
    ['port-out-of-range', None, None]
    """


def is_valid(array: pa.Array | pa.ChunkedArray, /, profile: str | Profile | None = None, mode: str = 'whatwg', invalid_utf8: str = 'error') -> pa.Array:
    """Whether each URL parses (null for null input); see ``error``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a:99999/", "http://a/", None]).url.is_valid().to_list()
    [False, True, None]
    """

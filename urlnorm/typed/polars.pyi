"""The url namespaces' methods and urlnorm.polars' functional forms. Made by ``python -m urlnorm.typed``; not edited by hand."""

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from urlnorm.core.profiles import Profile
from urlnorm.core.providers import Provider

import polars as pl


class ExprFunctions:
    """The ``url`` namespace of a Polars expression."""

    def normalize(self, profile: str | Profile = 'rfc3986', *, strict: bool = False, invalid_utf8: str = 'error') -> pl.Expr:
        """Normalise each URL by ``profile`` (as :func:`urlnorm.normalize`); invalid rows null.

        A Binary column is read as UTF-8; a row that is not gets null and ``invalid-UTF-8``,
        or with ``invalid_utf8="encode"`` its undecodable bytes are percent-encoded.
        ``strict=True`` raises :class:`urlnorm.URLError` naming the first bad row instead.

        >>> import polars as pl, urlnorm
        >>> urls = pl.Series(["HTTP://Example.com:80", "https://a/%7e", "http://[1"])
        >>> urls.url.normalize("canonical").to_list()
        ['http://example.com/', 'https://a/~', None]
        """

    def parse(self, profile: str | Profile = 'canonical', fields: Sequence[str] = ..., *, strict: bool = False, invalid_utf8: str = 'error', with_scheme: bool = False, trailing_comma: bool = False) -> pl.Expr:
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
        """

    def split(self, mode: str = 'whatwg', *, strict: bool = False, invalid_utf8: str = 'error') -> pl.Expr:
        """Split each URL into the URL record struct (as :func:`urlnorm.split`).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTPS://Example.com:8443/p?q#f"]).url.split().struct.unnest().row(0)
        ('https', None, None, 'example.com', 8443, '/p', 'q', 'f')
        """

    def join(self, base: str | pl.Expr, mode: str = 'whatwg', *, strict: bool = False) -> pl.Expr:
        """Resolve each reference against ``base``, a literal or a column (:func:`urlnorm.join`).

        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"ref": ["../g", "?y"], "base": ["http://a/b/c/d", "http://a/b"]})
        >>> df.select(pl.col("ref").url.join(pl.col("base")))["ref"].to_list()
        ['http://a/b/g', 'http://a/b?y']
        """

    def key(self, profile: str | Profile = 'canonical', *, strict: bool = False) -> pl.Expr:
        """The deduplication key of each URL: its normal form under ``profile``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://A.com:80/x#f", "http://a.com/x"]).url.key("crawl").to_list()
        ['http://a.com/x', 'http://a.com/x']
        """

    def key_hash(self, profile: str | Profile = 'canonical') -> pl.Expr:
        """The 64-bit FNV-1a hash of each URL's key under ``profile`` (null if invalid).

        >>> import polars as pl, urlnorm
        >>> hashes = pl.Series(["HTTP://A.com:80/x", "http://a.com/x"]).url.key_hash()
        >>> hashes[0] == hashes[1]
        True
        """

    def surt(self, profile: str | Profile = 'crawl', *, with_scheme: bool = False, trailing_comma: bool = False, strict: bool = False) -> pl.Expr:
        """The SURT key of each URL (as :func:`urlnorm.surt`), e.g. ``com,example)/a``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://www.Example.com/a?b=2&a=1"]).url.surt().to_list()
        ['com,example)/a?a=1&b=2']
        """

    def explain(self, profile: str | Profile = 'canonical') -> pl.Expr:
        """Per row, the names of the rules (and parse step) that changed it.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a.com:80/x", "http://a.com/x"]).url.explain("rfc3986").to_list()
        [['lowercase_scheme', 'drop_default_port'], []]
        """

    def registered_domain(self, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Expr:
        """The registered domain (eTLD+1) of each domain host, from the Public Suffix List.

        ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
        ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.registered_domain().to_list()
        ['example.co.uk', None]
        """

    def public_suffix(self, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Expr:
        """The public suffix of each domain host, from the Public Suffix List.

        ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
        ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.public_suffix().to_list()
        ['co.uk', None]
        """

    def subdomain(self, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Expr:
        """What precedes the registered domain (``''`` if nothing), from the Public Suffix List.

        ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
        ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.subdomain().to_list()
        ['www.a', None]
        """

    def domain_label(self, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Expr:
        """The registered domain's own label, from the Public Suffix List.

        ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
        ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.domain_label().to_list()
        ['example', None]
        """

    def tld(self, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Expr:
        """The last label of each domain host, from the Public Suffix List.

        ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
        ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.tld().to_list()
        ['uk', None]
        """

    def host_type(self) -> pl.Expr:
        """``domain``, ``ipv4``, ``ipv6`` or ``opaque``; null without a host or if invalid.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a.com/", "http://[::1]/", "http://1.2.3.4/"]).url.host_type().to_list()
        ['domain', 'ipv6', 'ipv4']
        """

    def host_unicode(self) -> pl.Expr:
        """The host with U-labels (UTS #46 ToUnicode).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://xn--bcher-kva.de/"]).url.host_unicode().to_list()
        ['bücher.de']
        """

    def host_ascii(self) -> pl.Expr:
        """The host with A-labels, as ``host`` gives it in ``whatwg`` mode.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://bücher.de/"]).url.host_ascii().to_list()
        ['xn--bcher-kva.de']
        """

    def host(self, mode: str = 'whatwg') -> pl.Expr:
        """The serialised host of each URL: A-label domain, dotted IPv4 or ``[IPv6]``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://BÜCHER.de/", "http://0x7f.1/"]).url.host().to_list()
        ['xn--bcher-kva.de', '127.0.0.1']
        """

    def scheme(self, mode: str = 'whatwg') -> pl.Expr:
        """The scheme (lower-case in ``whatwg`` mode) of each URL, from its split in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.scheme().to_list()[0] is not None
        True
        """

    def port(self, mode: str = 'whatwg') -> pl.Expr:
        """The port (null when absent or the scheme's default) of each URL, from its split in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.port().to_list()[0] is not None
        True
        """

    def path(self, mode: str = 'whatwg') -> pl.Expr:
        """The path of each URL, from its split in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.path().to_list()[0] is not None
        True
        """

    def query(self, mode: str = 'whatwg') -> pl.Expr:
        """The query (null without ``?``, empty for a bare ``?``) of each URL, from its split in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.query().to_list()[0] is not None
        True
        """

    def fragment(self, mode: str = 'whatwg') -> pl.Expr:
        """The fragment (null without ``#``, empty for a bare ``#``) of each URL, from its split in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.fragment().to_list()[0] is not None
        True
        """

    def filter_reason(self, *, max_length: int = 2048, max_depth: int = 20, max_repeats: int = 3, schemes: Sequence[str] = ..., extensions: Sequence[str] = ...) -> pl.Expr:
        """The first reason to keep each URL out of a crawl, or null (:mod:`urlnorm.core.filters`).

        ``invalid-url``, ``non-web-scheme``, ``too-long``, ``private-address``, ``local-name``,
        ``binary-file``, ``trap-depth``, ``trap-repeated-segment`` or ``trap-calendar``.

        >>> import polars as pl, urlnorm
        >>> urls = pl.Series(["https://a.com/p", "http://10.0.0.1/", "https://a.com/x.zip"])
        >>> urls.url.filter_reason().to_list()
        [None, 'private-address', 'binary-file']
        """

    def is_crawlable(self, *, max_length: int = 2048, max_depth: int = 20, max_repeats: int = 3, schemes: Sequence[str] = ..., extensions: Sequence[str] = ...) -> pl.Expr:
        """Whether no filter keeps the URL out (``filter_reason``'s settings); null for null.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com/p", "ftp://a.com/", None]).url.is_crawlable().to_list()
        [True, False, None]
        """

    def unwrap_redirects(self, providers: Sequence[Provider] = ...) -> pl.Expr:
        """Each link through a known redirector replaced by its target, as written (no fetch).

        The wrappers of :mod:`urlnorm.core.redirects` (Google, Facebook, Reddit, YouTube,
        Outlook safe links, Proofpoint …) and those ``providers`` declare (a profile file's),
        in chains of up to five; other URLs are unchanged.

        >>> import polars as pl, urlnorm
        >>> links = pl.Series(["https://www.google.com/url?q=https%3A%2F%2Fexample.com%2Fa"])
        >>> links.url.unwrap_redirects().to_list()
        ['https://example.com/a']
        """

    def same_site(self, other: str | pl.Expr, *, by: str = 'site', psl: str | Path | None = None) -> pl.Expr:
        """Whether each URL and ``other`` are the same site (``by="site"``) or origin.

        Site: the same registrable domain, or the same host where there is none (HTML's
        "schemelessly same site"); origin: the same scheme, host and port. Null if either URL
        is invalid.

        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"link": ["https://blog.a.co.uk/x", "http://b.com/"], "page": "http://www.a.co.uk/"})
        >>> df.select(pl.col("link").url.same_site(pl.col("page")))["link"].to_list()
        [True, False]
        """

    def is_external(self, other: str | pl.Expr, *, by: str = 'site', psl: str | Path | None = None) -> pl.Expr:
        """Whether each URL leaves the site (or origin) of ``other``: not ``same_site``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://b.com/"]).url.is_external("https://a.com/").to_list()
        [True]
        """

    def cc_index(self) -> pl.Expr:
        """Common Crawl's columnar index columns (``url_surtkey``, ``url_host_name``, …).

        A struct with the index's names and types, equal to what its converter stores for
        the same URL (:mod:`urlnorm.core.cc_index`); null for a row that is no absolute URL.

        >>> import polars as pl, urlnorm
        >>> row = pl.Series(["https://myblog.blogspot.com:8443/a?b=1"]).url.cc_index()[0]
        >>> row["url_surtkey"], row["url_host_registered_domain"]
        ('com,blogspot,myblog:8443)/a?b=1', 'blogspot.com')
        """

    def path_segments(self) -> pl.Expr:
        """The path's segments as a list (``/a/b/`` gives ``a``, ``b``, ``''``).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/x/y/"]).url.path_segments().to_list()
        [['x', 'y', '']]
        """

    def path_depth(self) -> pl.Expr:
        """How many non-empty segments the path has.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/x/y/"]).url.path_depth().to_list()
        [2]
        """

    def file_extension(self) -> pl.Expr:
        """The last segment's extension (``gz`` for ``b.tar.gz``), or null.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/b.tar.gz", "http://a/b"]).url.file_extension().to_list()
        ['gz', None]
        """

    def query_params(self) -> pl.Expr:
        """The query's decoded ``{key, value}`` pairs, in order (URL Standard §5.1).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=x+y&id=1"]).url.query_params().to_list()
        [[{'key': 'q', 'value': 'x y'}, {'key': 'id', 'value': '1'}]]
        """

    def query_param(self, name: str) -> pl.Expr:
        """The first decoded value of parameter ``name``, or null.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=x+y&q=2"]).url.query_param("q").to_list()
        ['x y']
        """

    def query_param_all(self, name: str) -> pl.Expr:
        """Every decoded value of parameter ``name``, in order.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=x+y&id=1&q=%C3%A9"]).url.query_param_all("q").to_list()
        [['x y', 'é']]
        """

    def strip_params(self, names: Sequence[str]) -> pl.Expr:
        """The URL without the parameters named (raw keys; nothing decoded or reordered).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?utm_source=x&id=1"]).url.strip_params(["utm_source"]).to_list()
        ['http://a/?id=1']
        """

    def keep_params(self, names: Sequence[str]) -> pl.Expr:
        """The URL with only the parameters named (raw keys; nothing decoded or reordered).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?utm_source=x&id=1"]).url.keep_params(["id"]).to_list()
        ['http://a/?id=1']
        """

    def referrer(self, page: str | pl.Expr | None = None, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pl.Expr:
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

    def campaign(self, *, parameters: Mapping[str, Sequence[str] | Mapping[str, str]] | None = None) -> pl.Expr:
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

    def source_medium(self, referrer: str | pl.Expr, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pl.Expr:
        """Each visit's ``{source, medium, campaign}`` as GA4 derives it from page and referrer.

        A Google click id gives ``google / cpc``; else the utm parameters; else the referrer
        (a search engine ``organic``, an AI assistant ``ai-assistant``, another site
        ``referral``, an internal one null); else ``(direct) / (none)``.

        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"page": ["https://shop.example/"], "ref": ["https://www.bing.com/search?q=x"]})
        >>> df.select(pl.col("page").url.source_medium(pl.col("ref")))["page"].to_list()
        [{'source': 'bing', 'medium': 'organic', 'campaign': '(organic)'}]
        """

    def channel_group(self, referrer: str | pl.Expr, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pl.Expr:
        """Each visit's GA4 default channel group (``Organic Search``, ``Paid Social`` …).

        From :meth:`source_medium` by GA4's published rules, in their order
        (:mod:`urlnorm.core.channels`); null for an invalid page or an internal referrer.

        >>> import polars as pl, urlnorm
        >>> pages = pl.Series(["https://a.example/?utm_source=facebook&utm_medium=cpc", "https://a.example/"])
        >>> pages.url.channel_group("https://chatgpt.com/").to_list()
        ['Paid Social', 'AI Assistant']
        """

    def origin(self) -> pl.Expr:
        """The origin browsers give: ``scheme://host[:port]``, or ``null`` (opaque).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com:8443/x", "data:,x"]).url.origin().to_list()
        ['https://a.com:8443', 'null']
        """

    def netloc(self) -> pl.Expr:
        """The authority of each URL, ``userinfo@host:port`` (RFC 3986 §3.2); null without a host.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u:p@A.com:8443/x", "mailto:a@b"]).url.netloc().to_list()
        ['u:p@a.com:8443', None]
        """

    def path_full(self) -> pl.Expr:
        """The path of each URL with its ``?query`` and ``#fragment``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a.com/p?x=1#f", "http://a.com"]).url.path_full().to_list()
        ['/p?x=1#f', '/']
        """

    def query_and_fragment(self) -> pl.Expr:
        """The query of each URL and its ``#fragment``; null if it has neither.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?x=1#f", "http://a/#f", "http://a/"]).url.query_and_fragment().to_list()
        ['x=1#f', '#f', None]
        """

    def cut_query(self) -> pl.Expr:
        """Each URL serialised without its query (URL Standard §4.5).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_query().to_list()
        ['http://a/p#f']
        """

    def cut_fragment(self) -> pl.Expr:
        """Each URL serialised with "exclude fragment" (URL Standard §4.5).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_fragment().to_list()
        ['http://a/p?x=1']
        """

    def cut_query_and_fragment(self) -> pl.Expr:
        """Each URL serialised without its query and its fragment.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_query_and_fragment().to_list()
        ['http://a/p']
        """

    def domain_without_www(self) -> pl.Expr:
        """The host of each URL without a leading ``www.`` label.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://WWW.a.com/", "http://www2.a.com/"]).url.domain_without_www().to_list()
        ['a.com', 'www2.a.com']
        """

    def cut_www(self) -> pl.Expr:
        """Each URL serialised with its host's leading ``www.`` label removed.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://www.a.com/x?y#z"]).url.cut_www().to_list()
        ['https://a.com/x?y#z']
        """

    def hierarchy(self) -> pl.Expr:
        """Each URL cut after each run of ``/`` in its path, then with its query (no fragment).

        A URL with an opaque path (``mailto:``) has none.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com/b/c?d=1#e"]).url.hierarchy().to_list()
        [['https://a.com/', 'https://a.com/b/', 'https://a.com/b/c', 'https://a.com/b/c?d=1']]
        """

    def path_hierarchy(self) -> pl.Expr:
        """The levels of ``hierarchy`` without the scheme and authority, the root left out.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com/b/c?d=1"]).url.path_hierarchy().to_list()
        [['/b/', '/b/c', '/b/c?d=1']]
        """

    def query_param_names(self) -> pl.Expr:
        """The decoded names of each query's parameters, in order (URL Standard §5.1).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=1&id=2&q=3&%C3%A9"]).url.query_param_names().to_list()
        [['q', 'id', 'q', 'é']]
        """

    def encode_component(self) -> pl.Expr:
        """Each text percent-encoded as a URL component (URL Standard §1.3, component set).

        What ``encodeURIComponent`` gives: UTF-8, every code point but ASCII letters, digits
        and ``-._~!'()*`` escaped.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a b/é?&=~"]).url.encode_component().to_list()
        ['a%20b%2F%C3%A9%3F%26%3D~']
        """

    def decode_component(self) -> pl.Expr:
        """Each text percent-decoded, its bytes read as UTF-8 (U+FFFD for invalid ones).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a%20b%2F%C3%A9+%zz"]).url.decode_component().to_list()
        ['a b/é+%zz']
        """

    def encode_form_component(self) -> pl.Expr:
        """Each text as the application/x-www-form-urlencoded serializer writes it (§5.2).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a b/é~*"]).url.encode_form_component().to_list()
        ['a+b%2F%C3%A9%7E*']
        """

    def decode_form_component(self) -> pl.Expr:
        """Each text as the application/x-www-form-urlencoded parser reads it (§5.1): ``+`` a space.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a+b%2B%C3%A9"]).url.decode_form_component().to_list()
        ['a b+é']
        """

    def error(self, profile: str | Profile | None = None, mode: str = 'whatwg', invalid_utf8: str = 'error') -> pl.Expr:
        """The error code of each invalid URL, null for valid ones and null inputs.

        With ``profile`` the code is that of :func:`urlnorm.normalize`, without it that of
        :func:`urlnorm.split` in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a:99999/", "http://a/", None]).url.error().to_list()
        ['port-out-of-range', None, None]
        """

    def is_valid(self, profile: str | Profile | None = None, mode: str = 'whatwg', invalid_utf8: str = 'error') -> pl.Expr:
        """Whether each URL parses (null for null input); see ``error``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a:99999/", "http://a/", None]).url.is_valid().to_list()
        [False, True, None]
        """


class SeriesFunctions:
    """The ``url`` namespace of a Polars Series."""

    def normalize(self, profile: str | Profile = 'rfc3986', *, strict: bool = False, invalid_utf8: str = 'error') -> pl.Series:
        """Normalise each URL by ``profile`` (as :func:`urlnorm.normalize`); invalid rows null.

        A Binary column is read as UTF-8; a row that is not gets null and ``invalid-UTF-8``,
        or with ``invalid_utf8="encode"`` its undecodable bytes are percent-encoded.
        ``strict=True`` raises :class:`urlnorm.URLError` naming the first bad row instead.

        >>> import polars as pl, urlnorm
        >>> urls = pl.Series(["HTTP://Example.com:80", "https://a/%7e", "http://[1"])
        >>> urls.url.normalize("canonical").to_list()
        ['http://example.com/', 'https://a/~', None]
        """

    def parse(self, profile: str | Profile = 'canonical', fields: Sequence[str] = ..., *, strict: bool = False, invalid_utf8: str = 'error', with_scheme: bool = False, trailing_comma: bool = False) -> pl.Series:
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
        """

    def split(self, mode: str = 'whatwg', *, strict: bool = False, invalid_utf8: str = 'error') -> pl.Series:
        """Split each URL into the URL record struct (as :func:`urlnorm.split`).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTPS://Example.com:8443/p?q#f"]).url.split().struct.unnest().row(0)
        ('https', None, None, 'example.com', 8443, '/p', 'q', 'f')
        """

    def join(self, base: str | pl.Series, mode: str = 'whatwg', *, strict: bool = False) -> pl.Series:
        """Resolve each reference against ``base``, a literal or a column (:func:`urlnorm.join`).

        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"ref": ["../g", "?y"], "base": ["http://a/b/c/d", "http://a/b"]})
        >>> df.select(pl.col("ref").url.join(pl.col("base")))["ref"].to_list()
        ['http://a/b/g', 'http://a/b?y']
        """

    def key(self, profile: str | Profile = 'canonical', *, strict: bool = False) -> pl.Series:
        """The deduplication key of each URL: its normal form under ``profile``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://A.com:80/x#f", "http://a.com/x"]).url.key("crawl").to_list()
        ['http://a.com/x', 'http://a.com/x']
        """

    def key_hash(self, profile: str | Profile = 'canonical') -> pl.Series:
        """The 64-bit FNV-1a hash of each URL's key under ``profile`` (null if invalid).

        >>> import polars as pl, urlnorm
        >>> hashes = pl.Series(["HTTP://A.com:80/x", "http://a.com/x"]).url.key_hash()
        >>> hashes[0] == hashes[1]
        True
        """

    def surt(self, profile: str | Profile = 'crawl', *, with_scheme: bool = False, trailing_comma: bool = False, strict: bool = False) -> pl.Series:
        """The SURT key of each URL (as :func:`urlnorm.surt`), e.g. ``com,example)/a``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://www.Example.com/a?b=2&a=1"]).url.surt().to_list()
        ['com,example)/a?a=1&b=2']
        """

    def explain(self, profile: str | Profile = 'canonical') -> pl.Series:
        """Per row, the names of the rules (and parse step) that changed it.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a.com:80/x", "http://a.com/x"]).url.explain("rfc3986").to_list()
        [['lowercase_scheme', 'drop_default_port'], []]
        """

    def registered_domain(self, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Series:
        """The registered domain (eTLD+1) of each domain host, from the Public Suffix List.

        ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
        ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.registered_domain().to_list()
        ['example.co.uk', None]
        """

    def public_suffix(self, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Series:
        """The public suffix of each domain host, from the Public Suffix List.

        ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
        ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.public_suffix().to_list()
        ['co.uk', None]
        """

    def subdomain(self, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Series:
        """What precedes the registered domain (``''`` if nothing), from the Public Suffix List.

        ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
        ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.subdomain().to_list()
        ['www.a', None]
        """

    def domain_label(self, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Series:
        """The registered domain's own label, from the Public Suffix List.

        ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
        ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.domain_label().to_list()
        ['example', None]
        """

    def tld(self, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Series:
        """The last label of each domain host, from the Public Suffix List.

        ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
        ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.tld().to_list()
        ['uk', None]
        """

    def host_type(self) -> pl.Series:
        """``domain``, ``ipv4``, ``ipv6`` or ``opaque``; null without a host or if invalid.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a.com/", "http://[::1]/", "http://1.2.3.4/"]).url.host_type().to_list()
        ['domain', 'ipv6', 'ipv4']
        """

    def host_unicode(self) -> pl.Series:
        """The host with U-labels (UTS #46 ToUnicode).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://xn--bcher-kva.de/"]).url.host_unicode().to_list()
        ['bücher.de']
        """

    def host_ascii(self) -> pl.Series:
        """The host with A-labels, as ``host`` gives it in ``whatwg`` mode.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://bücher.de/"]).url.host_ascii().to_list()
        ['xn--bcher-kva.de']
        """

    def host(self, mode: str = 'whatwg') -> pl.Series:
        """The serialised host of each URL: A-label domain, dotted IPv4 or ``[IPv6]``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://BÜCHER.de/", "http://0x7f.1/"]).url.host().to_list()
        ['xn--bcher-kva.de', '127.0.0.1']
        """

    def scheme(self, mode: str = 'whatwg') -> pl.Series:
        """The scheme (lower-case in ``whatwg`` mode) of each URL, from its split in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.scheme().to_list()[0] is not None
        True
        """

    def port(self, mode: str = 'whatwg') -> pl.Series:
        """The port (null when absent or the scheme's default) of each URL, from its split in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.port().to_list()[0] is not None
        True
        """

    def path(self, mode: str = 'whatwg') -> pl.Series:
        """The path of each URL, from its split in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.path().to_list()[0] is not None
        True
        """

    def query(self, mode: str = 'whatwg') -> pl.Series:
        """The query (null without ``?``, empty for a bare ``?``) of each URL, from its split in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.query().to_list()[0] is not None
        True
        """

    def fragment(self, mode: str = 'whatwg') -> pl.Series:
        """The fragment (null without ``#``, empty for a bare ``#``) of each URL, from its split in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.fragment().to_list()[0] is not None
        True
        """

    def filter_reason(self, *, max_length: int = 2048, max_depth: int = 20, max_repeats: int = 3, schemes: Sequence[str] = ..., extensions: Sequence[str] = ...) -> pl.Series:
        """The first reason to keep each URL out of a crawl, or null (:mod:`urlnorm.core.filters`).

        ``invalid-url``, ``non-web-scheme``, ``too-long``, ``private-address``, ``local-name``,
        ``binary-file``, ``trap-depth``, ``trap-repeated-segment`` or ``trap-calendar``.

        >>> import polars as pl, urlnorm
        >>> urls = pl.Series(["https://a.com/p", "http://10.0.0.1/", "https://a.com/x.zip"])
        >>> urls.url.filter_reason().to_list()
        [None, 'private-address', 'binary-file']
        """

    def is_crawlable(self, *, max_length: int = 2048, max_depth: int = 20, max_repeats: int = 3, schemes: Sequence[str] = ..., extensions: Sequence[str] = ...) -> pl.Series:
        """Whether no filter keeps the URL out (``filter_reason``'s settings); null for null.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com/p", "ftp://a.com/", None]).url.is_crawlable().to_list()
        [True, False, None]
        """

    def unwrap_redirects(self, providers: Sequence[Provider] = ...) -> pl.Series:
        """Each link through a known redirector replaced by its target, as written (no fetch).

        The wrappers of :mod:`urlnorm.core.redirects` (Google, Facebook, Reddit, YouTube,
        Outlook safe links, Proofpoint …) and those ``providers`` declare (a profile file's),
        in chains of up to five; other URLs are unchanged.

        >>> import polars as pl, urlnorm
        >>> links = pl.Series(["https://www.google.com/url?q=https%3A%2F%2Fexample.com%2Fa"])
        >>> links.url.unwrap_redirects().to_list()
        ['https://example.com/a']
        """

    def same_site(self, other: str | pl.Series, *, by: str = 'site', psl: str | Path | None = None) -> pl.Series:
        """Whether each URL and ``other`` are the same site (``by="site"``) or origin.

        Site: the same registrable domain, or the same host where there is none (HTML's
        "schemelessly same site"); origin: the same scheme, host and port. Null if either URL
        is invalid.

        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"link": ["https://blog.a.co.uk/x", "http://b.com/"], "page": "http://www.a.co.uk/"})
        >>> df.select(pl.col("link").url.same_site(pl.col("page")))["link"].to_list()
        [True, False]
        """

    def is_external(self, other: str | pl.Series, *, by: str = 'site', psl: str | Path | None = None) -> pl.Series:
        """Whether each URL leaves the site (or origin) of ``other``: not ``same_site``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://b.com/"]).url.is_external("https://a.com/").to_list()
        [True]
        """

    def cc_index(self) -> pl.Series:
        """Common Crawl's columnar index columns (``url_surtkey``, ``url_host_name``, …).

        A struct with the index's names and types, equal to what its converter stores for
        the same URL (:mod:`urlnorm.core.cc_index`); null for a row that is no absolute URL.

        >>> import polars as pl, urlnorm
        >>> row = pl.Series(["https://myblog.blogspot.com:8443/a?b=1"]).url.cc_index()[0]
        >>> row["url_surtkey"], row["url_host_registered_domain"]
        ('com,blogspot,myblog:8443)/a?b=1', 'blogspot.com')
        """

    def path_segments(self) -> pl.Series:
        """The path's segments as a list (``/a/b/`` gives ``a``, ``b``, ``''``).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/x/y/"]).url.path_segments().to_list()
        [['x', 'y', '']]
        """

    def path_depth(self) -> pl.Series:
        """How many non-empty segments the path has.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/x/y/"]).url.path_depth().to_list()
        [2]
        """

    def file_extension(self) -> pl.Series:
        """The last segment's extension (``gz`` for ``b.tar.gz``), or null.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/b.tar.gz", "http://a/b"]).url.file_extension().to_list()
        ['gz', None]
        """

    def query_params(self) -> pl.Series:
        """The query's decoded ``{key, value}`` pairs, in order (URL Standard §5.1).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=x+y&id=1"]).url.query_params().to_list()
        [[{'key': 'q', 'value': 'x y'}, {'key': 'id', 'value': '1'}]]
        """

    def query_param(self, name: str) -> pl.Series:
        """The first decoded value of parameter ``name``, or null.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=x+y&q=2"]).url.query_param("q").to_list()
        ['x y']
        """

    def query_param_all(self, name: str) -> pl.Series:
        """Every decoded value of parameter ``name``, in order.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=x+y&id=1&q=%C3%A9"]).url.query_param_all("q").to_list()
        [['x y', 'é']]
        """

    def strip_params(self, names: Sequence[str]) -> pl.Series:
        """The URL without the parameters named (raw keys; nothing decoded or reordered).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?utm_source=x&id=1"]).url.strip_params(["utm_source"]).to_list()
        ['http://a/?id=1']
        """

    def keep_params(self, names: Sequence[str]) -> pl.Series:
        """The URL with only the parameters named (raw keys; nothing decoded or reordered).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?utm_source=x&id=1"]).url.keep_params(["id"]).to_list()
        ['http://a/?id=1']
        """

    def referrer(self, page: str | pl.Series | None = None, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pl.Series:
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

    def campaign(self, *, parameters: Mapping[str, Sequence[str] | Mapping[str, str]] | None = None) -> pl.Series:
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

    def source_medium(self, referrer: str | pl.Series, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pl.Series:
        """Each visit's ``{source, medium, campaign}`` as GA4 derives it from page and referrer.

        A Google click id gives ``google / cpc``; else the utm parameters; else the referrer
        (a search engine ``organic``, an AI assistant ``ai-assistant``, another site
        ``referral``, an internal one null); else ``(direct) / (none)``.

        >>> import polars as pl, urlnorm
        >>> df = pl.DataFrame({"page": ["https://shop.example/"], "ref": ["https://www.bing.com/search?q=x"]})
        >>> df.select(pl.col("page").url.source_medium(pl.col("ref")))["page"].to_list()
        [{'source': 'bing', 'medium': 'organic', 'campaign': '(organic)'}]
        """

    def channel_group(self, referrer: str | pl.Series, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pl.Series:
        """Each visit's GA4 default channel group (``Organic Search``, ``Paid Social`` …).

        From :meth:`source_medium` by GA4's published rules, in their order
        (:mod:`urlnorm.core.channels`); null for an invalid page or an internal referrer.

        >>> import polars as pl, urlnorm
        >>> pages = pl.Series(["https://a.example/?utm_source=facebook&utm_medium=cpc", "https://a.example/"])
        >>> pages.url.channel_group("https://chatgpt.com/").to_list()
        ['Paid Social', 'AI Assistant']
        """

    def origin(self) -> pl.Series:
        """The origin browsers give: ``scheme://host[:port]``, or ``null`` (opaque).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com:8443/x", "data:,x"]).url.origin().to_list()
        ['https://a.com:8443', 'null']
        """

    def netloc(self) -> pl.Series:
        """The authority of each URL, ``userinfo@host:port`` (RFC 3986 §3.2); null without a host.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://u:p@A.com:8443/x", "mailto:a@b"]).url.netloc().to_list()
        ['u:p@a.com:8443', None]
        """

    def path_full(self) -> pl.Series:
        """The path of each URL with its ``?query`` and ``#fragment``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a.com/p?x=1#f", "http://a.com"]).url.path_full().to_list()
        ['/p?x=1#f', '/']
        """

    def query_and_fragment(self) -> pl.Series:
        """The query of each URL and its ``#fragment``; null if it has neither.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?x=1#f", "http://a/#f", "http://a/"]).url.query_and_fragment().to_list()
        ['x=1#f', '#f', None]
        """

    def cut_query(self) -> pl.Series:
        """Each URL serialised without its query (URL Standard §4.5).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_query().to_list()
        ['http://a/p#f']
        """

    def cut_fragment(self) -> pl.Series:
        """Each URL serialised with "exclude fragment" (URL Standard §4.5).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_fragment().to_list()
        ['http://a/p?x=1']
        """

    def cut_query_and_fragment(self) -> pl.Series:
        """Each URL serialised without its query and its fragment.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_query_and_fragment().to_list()
        ['http://a/p']
        """

    def domain_without_www(self) -> pl.Series:
        """The host of each URL without a leading ``www.`` label.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://WWW.a.com/", "http://www2.a.com/"]).url.domain_without_www().to_list()
        ['a.com', 'www2.a.com']
        """

    def cut_www(self) -> pl.Series:
        """Each URL serialised with its host's leading ``www.`` label removed.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://www.a.com/x?y#z"]).url.cut_www().to_list()
        ['https://a.com/x?y#z']
        """

    def hierarchy(self) -> pl.Series:
        """Each URL cut after each run of ``/`` in its path, then with its query (no fragment).

        A URL with an opaque path (``mailto:``) has none.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com/b/c?d=1#e"]).url.hierarchy().to_list()
        [['https://a.com/', 'https://a.com/b/', 'https://a.com/b/c', 'https://a.com/b/c?d=1']]
        """

    def path_hierarchy(self) -> pl.Series:
        """The levels of ``hierarchy`` without the scheme and authority, the root left out.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["https://a.com/b/c?d=1"]).url.path_hierarchy().to_list()
        [['/b/', '/b/c', '/b/c?d=1']]
        """

    def query_param_names(self) -> pl.Series:
        """The decoded names of each query's parameters, in order (URL Standard §5.1).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a/?q=1&id=2&q=3&%C3%A9"]).url.query_param_names().to_list()
        [['q', 'id', 'q', 'é']]
        """

    def encode_component(self) -> pl.Series:
        """Each text percent-encoded as a URL component (URL Standard §1.3, component set).

        What ``encodeURIComponent`` gives: UTF-8, every code point but ASCII letters, digits
        and ``-._~!'()*`` escaped.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a b/é?&=~"]).url.encode_component().to_list()
        ['a%20b%2F%C3%A9%3F%26%3D~']
        """

    def decode_component(self) -> pl.Series:
        """Each text percent-decoded, its bytes read as UTF-8 (U+FFFD for invalid ones).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a%20b%2F%C3%A9+%zz"]).url.decode_component().to_list()
        ['a b/é+%zz']
        """

    def encode_form_component(self) -> pl.Series:
        """Each text as the application/x-www-form-urlencoded serializer writes it (§5.2).

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a b/é~*"]).url.encode_form_component().to_list()
        ['a+b%2F%C3%A9%7E*']
        """

    def decode_form_component(self) -> pl.Series:
        """Each text as the application/x-www-form-urlencoded parser reads it (§5.1): ``+`` a space.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["a+b%2B%C3%A9"]).url.decode_form_component().to_list()
        ['a b+é']
        """

    def error(self, profile: str | Profile | None = None, mode: str = 'whatwg', invalid_utf8: str = 'error') -> pl.Series:
        """The error code of each invalid URL, null for valid ones and null inputs.

        With ``profile`` the code is that of :func:`urlnorm.normalize`, without it that of
        :func:`urlnorm.split` in ``mode``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a:99999/", "http://a/", None]).url.error().to_list()
        ['port-out-of-range', None, None]
        """

    def is_valid(self, profile: str | Profile | None = None, mode: str = 'whatwg', invalid_utf8: str = 'error') -> pl.Series:
        """Whether each URL parses (null for null input); see ``error``.

        >>> import polars as pl, urlnorm
        >>> pl.Series(["http://a:99999/", "http://a/", None]).url.is_valid().to_list()
        [False, True, None]
        """


def normalize(expr: str | pl.Expr, /, profile: str | Profile = 'rfc3986', *, strict: bool = False, invalid_utf8: str = 'error') -> pl.Expr:
    """Normalise each URL by ``profile`` (as :func:`urlnorm.normalize`); invalid rows null.

    A Binary column is read as UTF-8; a row that is not gets null and ``invalid-UTF-8``,
    or with ``invalid_utf8="encode"`` its undecodable bytes are percent-encoded.
    ``strict=True`` raises :class:`urlnorm.URLError` naming the first bad row instead.

    >>> import polars as pl, urlnorm
    >>> urls = pl.Series(["HTTP://Example.com:80", "https://a/%7e", "http://[1"])
    >>> urls.url.normalize("canonical").to_list()
    ['http://example.com/', 'https://a/~', None]
    """


def parse(expr: str | pl.Expr, /, profile: str | Profile = 'canonical', fields: Sequence[str] = ..., *, strict: bool = False, invalid_utf8: str = 'error', with_scheme: bool = False, trailing_comma: bool = False) -> pl.Expr:
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
    """


def split(expr: str | pl.Expr, /, mode: str = 'whatwg', *, strict: bool = False, invalid_utf8: str = 'error') -> pl.Expr:
    """Split each URL into the URL record struct (as :func:`urlnorm.split`).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTPS://Example.com:8443/p?q#f"]).url.split().struct.unnest().row(0)
    ('https', None, None, 'example.com', 8443, '/p', 'q', 'f')
    """


def join(expr: str | pl.Expr, /, base: str | pl.Expr, mode: str = 'whatwg', *, strict: bool = False) -> pl.Expr:
    """Resolve each reference against ``base``, a literal or a column (:func:`urlnorm.join`).

    >>> import polars as pl, urlnorm
    >>> df = pl.DataFrame({"ref": ["../g", "?y"], "base": ["http://a/b/c/d", "http://a/b"]})
    >>> df.select(pl.col("ref").url.join(pl.col("base")))["ref"].to_list()
    ['http://a/b/g', 'http://a/b?y']
    """


def key(expr: str | pl.Expr, /, profile: str | Profile = 'canonical', *, strict: bool = False) -> pl.Expr:
    """The deduplication key of each URL: its normal form under ``profile``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTP://A.com:80/x#f", "http://a.com/x"]).url.key("crawl").to_list()
    ['http://a.com/x', 'http://a.com/x']
    """


def key_hash(expr: str | pl.Expr, /, profile: str | Profile = 'canonical') -> pl.Expr:
    """The 64-bit FNV-1a hash of each URL's key under ``profile`` (null if invalid).

    >>> import polars as pl, urlnorm
    >>> hashes = pl.Series(["HTTP://A.com:80/x", "http://a.com/x"]).url.key_hash()
    >>> hashes[0] == hashes[1]
    True
    """


def surt(expr: str | pl.Expr, /, profile: str | Profile = 'crawl', *, with_scheme: bool = False, trailing_comma: bool = False, strict: bool = False) -> pl.Expr:
    """The SURT key of each URL (as :func:`urlnorm.surt`), e.g. ``com,example)/a``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://www.Example.com/a?b=2&a=1"]).url.surt().to_list()
    ['com,example)/a?a=1&b=2']
    """


def explain(expr: str | pl.Expr, /, profile: str | Profile = 'canonical') -> pl.Expr:
    """Per row, the names of the rules (and parse step) that changed it.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTP://a.com:80/x", "http://a.com/x"]).url.explain("rfc3986").to_list()
    [['lowercase_scheme', 'drop_default_port'], []]
    """


def registered_domain(expr: str | pl.Expr, /, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Expr:
    """The registered domain (eTLD+1) of each domain host, from the Public Suffix List.

    ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
    ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.registered_domain().to_list()
    ['example.co.uk', None]
    """


def public_suffix(expr: str | pl.Expr, /, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Expr:
    """The public suffix of each domain host, from the Public Suffix List.

    ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
    ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.public_suffix().to_list()
    ['co.uk', None]
    """


def subdomain(expr: str | pl.Expr, /, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Expr:
    """What precedes the registered domain (``''`` if nothing), from the Public Suffix List.

    ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
    ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.subdomain().to_list()
    ['www.a', None]
    """


def domain_label(expr: str | pl.Expr, /, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Expr:
    """The registered domain's own label, from the Public Suffix List.

    ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
    ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.domain_label().to_list()
    ['example', None]
    """


def tld(expr: str | pl.Expr, /, *, include_private: bool = True, host_form: str = 'ascii', psl: str | Path | None = None) -> pl.Expr:
    """The last label of each domain host, from the Public Suffix List.

    ``include_private``: with the list's private section (``blogspot.com``); ``host_form``:
    ``ascii`` or ``unicode``; ``psl``: a list file to read instead of the process's list.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://www.a.example.co.uk/", "http://1.2.3.4/"]).url.tld().to_list()
    ['uk', None]
    """


def host_type(expr: str | pl.Expr, /) -> pl.Expr:
    """``domain``, ``ipv4``, ``ipv6`` or ``opaque``; null without a host or if invalid.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a.com/", "http://[::1]/", "http://1.2.3.4/"]).url.host_type().to_list()
    ['domain', 'ipv6', 'ipv4']
    """


def host_unicode(expr: str | pl.Expr, /) -> pl.Expr:
    """The host with U-labels (UTS #46 ToUnicode).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://xn--bcher-kva.de/"]).url.host_unicode().to_list()
    ['bücher.de']
    """


def host_ascii(expr: str | pl.Expr, /) -> pl.Expr:
    """The host with A-labels, as ``host`` gives it in ``whatwg`` mode.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://bücher.de/"]).url.host_ascii().to_list()
    ['xn--bcher-kva.de']
    """


def host(expr: str | pl.Expr, /, mode: str = 'whatwg') -> pl.Expr:
    """The serialised host of each URL: A-label domain, dotted IPv4 or ``[IPv6]``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://BÜCHER.de/", "http://0x7f.1/"]).url.host().to_list()
    ['xn--bcher-kva.de', '127.0.0.1']
    """


def scheme(expr: str | pl.Expr, /, mode: str = 'whatwg') -> pl.Expr:
    """The scheme (lower-case in ``whatwg`` mode) of each URL, from its split in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.scheme().to_list()[0] is not None
    True
    """


def port(expr: str | pl.Expr, /, mode: str = 'whatwg') -> pl.Expr:
    """The port (null when absent or the scheme's default) of each URL, from its split in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.port().to_list()[0] is not None
    True
    """


def path(expr: str | pl.Expr, /, mode: str = 'whatwg') -> pl.Expr:
    """The path of each URL, from its split in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.path().to_list()[0] is not None
    True
    """


def query(expr: str | pl.Expr, /, mode: str = 'whatwg') -> pl.Expr:
    """The query (null without ``?``, empty for a bare ``?``) of each URL, from its split in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.query().to_list()[0] is not None
    True
    """


def fragment(expr: str | pl.Expr, /, mode: str = 'whatwg') -> pl.Expr:
    """The fragment (null without ``#``, empty for a bare ``#``) of each URL, from its split in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u@a.example:8443/p?q=1#f"]).url.fragment().to_list()[0] is not None
    True
    """


def filter_reason(expr: str | pl.Expr, /, *, max_length: int = 2048, max_depth: int = 20, max_repeats: int = 3, schemes: Sequence[str] = ..., extensions: Sequence[str] = ...) -> pl.Expr:
    """The first reason to keep each URL out of a crawl, or null (:mod:`urlnorm.core.filters`).

    ``invalid-url``, ``non-web-scheme``, ``too-long``, ``private-address``, ``local-name``,
    ``binary-file``, ``trap-depth``, ``trap-repeated-segment`` or ``trap-calendar``.

    >>> import polars as pl, urlnorm
    >>> urls = pl.Series(["https://a.com/p", "http://10.0.0.1/", "https://a.com/x.zip"])
    >>> urls.url.filter_reason().to_list()
    [None, 'private-address', 'binary-file']
    """


def is_crawlable(expr: str | pl.Expr, /, *, max_length: int = 2048, max_depth: int = 20, max_repeats: int = 3, schemes: Sequence[str] = ..., extensions: Sequence[str] = ...) -> pl.Expr:
    """Whether no filter keeps the URL out (``filter_reason``'s settings); null for null.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://a.com/p", "ftp://a.com/", None]).url.is_crawlable().to_list()
    [True, False, None]
    """


def unwrap_redirects(expr: str | pl.Expr, /, providers: Sequence[Provider] = ...) -> pl.Expr:
    """Each link through a known redirector replaced by its target, as written (no fetch).

    The wrappers of :mod:`urlnorm.core.redirects` (Google, Facebook, Reddit, YouTube,
    Outlook safe links, Proofpoint …) and those ``providers`` declare (a profile file's),
    in chains of up to five; other URLs are unchanged.

    >>> import polars as pl, urlnorm
    >>> links = pl.Series(["https://www.google.com/url?q=https%3A%2F%2Fexample.com%2Fa"])
    >>> links.url.unwrap_redirects().to_list()
    ['https://example.com/a']
    """


def same_site(expr: str | pl.Expr, /, other: str | pl.Expr, *, by: str = 'site', psl: str | Path | None = None) -> pl.Expr:
    """Whether each URL and ``other`` are the same site (``by="site"``) or origin.

    Site: the same registrable domain, or the same host where there is none (HTML's
    "schemelessly same site"); origin: the same scheme, host and port. Null if either URL
    is invalid.

    >>> import polars as pl, urlnorm
    >>> df = pl.DataFrame({"link": ["https://blog.a.co.uk/x", "http://b.com/"], "page": "http://www.a.co.uk/"})
    >>> df.select(pl.col("link").url.same_site(pl.col("page")))["link"].to_list()
    [True, False]
    """


def is_external(expr: str | pl.Expr, /, other: str | pl.Expr, *, by: str = 'site', psl: str | Path | None = None) -> pl.Expr:
    """Whether each URL leaves the site (or origin) of ``other``: not ``same_site``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://b.com/"]).url.is_external("https://a.com/").to_list()
    [True]
    """


def cc_index(expr: str | pl.Expr, /) -> pl.Expr:
    """Common Crawl's columnar index columns (``url_surtkey``, ``url_host_name``, …).

    A struct with the index's names and types, equal to what its converter stores for
    the same URL (:mod:`urlnorm.core.cc_index`); null for a row that is no absolute URL.

    >>> import polars as pl, urlnorm
    >>> row = pl.Series(["https://myblog.blogspot.com:8443/a?b=1"]).url.cc_index()[0]
    >>> row["url_surtkey"], row["url_host_registered_domain"]
    ('com,blogspot,myblog:8443)/a?b=1', 'blogspot.com')
    """


def path_segments(expr: str | pl.Expr, /) -> pl.Expr:
    """The path's segments as a list (``/a/b/`` gives ``a``, ``b``, ``''``).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/x/y/"]).url.path_segments().to_list()
    [['x', 'y', '']]
    """


def path_depth(expr: str | pl.Expr, /) -> pl.Expr:
    """How many non-empty segments the path has.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/x/y/"]).url.path_depth().to_list()
    [2]
    """


def file_extension(expr: str | pl.Expr, /) -> pl.Expr:
    """The last segment's extension (``gz`` for ``b.tar.gz``), or null.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/b.tar.gz", "http://a/b"]).url.file_extension().to_list()
    ['gz', None]
    """


def query_params(expr: str | pl.Expr, /) -> pl.Expr:
    """The query's decoded ``{key, value}`` pairs, in order (URL Standard §5.1).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?q=x+y&id=1"]).url.query_params().to_list()
    [[{'key': 'q', 'value': 'x y'}, {'key': 'id', 'value': '1'}]]
    """


def query_param(expr: str | pl.Expr, /, name: str) -> pl.Expr:
    """The first decoded value of parameter ``name``, or null.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?q=x+y&q=2"]).url.query_param("q").to_list()
    ['x y']
    """


def query_param_all(expr: str | pl.Expr, /, name: str) -> pl.Expr:
    """Every decoded value of parameter ``name``, in order.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?q=x+y&id=1&q=%C3%A9"]).url.query_param_all("q").to_list()
    [['x y', 'é']]
    """


def strip_params(expr: str | pl.Expr, /, names: Sequence[str]) -> pl.Expr:
    """The URL without the parameters named (raw keys; nothing decoded or reordered).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?utm_source=x&id=1"]).url.strip_params(["utm_source"]).to_list()
    ['http://a/?id=1']
    """


def keep_params(expr: str | pl.Expr, /, names: Sequence[str]) -> pl.Expr:
    """The URL with only the parameters named (raw keys; nothing decoded or reordered).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?utm_source=x&id=1"]).url.keep_params(["id"]).to_list()
    ['http://a/?id=1']
    """


def referrer(expr: str | pl.Expr, /, page: str | pl.Expr | None = None, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pl.Expr:
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


def campaign(expr: str | pl.Expr, /, *, parameters: Mapping[str, Sequence[str] | Mapping[str, str]] | None = None) -> pl.Expr:
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


def source_medium(expr: str | pl.Expr, /, referrer: str | pl.Expr, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pl.Expr:
    """Each visit's ``{source, medium, campaign}`` as GA4 derives it from page and referrer.

    A Google click id gives ``google / cpc``; else the utm parameters; else the referrer
    (a search engine ``organic``, an AI assistant ``ai-assistant``, another site
    ``referral``, an internal one null); else ``(direct) / (none)``.

    >>> import polars as pl, urlnorm
    >>> df = pl.DataFrame({"page": ["https://shop.example/"], "ref": ["https://www.bing.com/search?q=x"]})
    >>> df.select(pl.col("page").url.source_medium(pl.col("ref")))["page"].to_list()
    [{'source': 'bing', 'medium': 'organic', 'campaign': '(organic)'}]
    """


def channel_group(expr: str | pl.Expr, /, referrer: str | pl.Expr, *, internal: Sequence[str] = ..., referrers: str | Path | None = None) -> pl.Expr:
    """Each visit's GA4 default channel group (``Organic Search``, ``Paid Social`` …).

    From :meth:`source_medium` by GA4's published rules, in their order
    (:mod:`urlnorm.core.channels`); null for an invalid page or an internal referrer.

    >>> import polars as pl, urlnorm
    >>> pages = pl.Series(["https://a.example/?utm_source=facebook&utm_medium=cpc", "https://a.example/"])
    >>> pages.url.channel_group("https://chatgpt.com/").to_list()
    ['Paid Social', 'AI Assistant']
    """


def origin(expr: str | pl.Expr, /) -> pl.Expr:
    """The origin browsers give: ``scheme://host[:port]``, or ``null`` (opaque).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://a.com:8443/x", "data:,x"]).url.origin().to_list()
    ['https://a.com:8443', 'null']
    """


def netloc(expr: str | pl.Expr, /) -> pl.Expr:
    """The authority of each URL, ``userinfo@host:port`` (RFC 3986 §3.2); null without a host.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://u:p@A.com:8443/x", "mailto:a@b"]).url.netloc().to_list()
    ['u:p@a.com:8443', None]
    """


def path_full(expr: str | pl.Expr, /) -> pl.Expr:
    """The path of each URL with its ``?query`` and ``#fragment``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a.com/p?x=1#f", "http://a.com"]).url.path_full().to_list()
    ['/p?x=1#f', '/']
    """


def query_and_fragment(expr: str | pl.Expr, /) -> pl.Expr:
    """The query of each URL and its ``#fragment``; null if it has neither.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?x=1#f", "http://a/#f", "http://a/"]).url.query_and_fragment().to_list()
    ['x=1#f', '#f', None]
    """


def cut_query(expr: str | pl.Expr, /) -> pl.Expr:
    """Each URL serialised without its query (URL Standard §4.5).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_query().to_list()
    ['http://a/p#f']
    """


def cut_fragment(expr: str | pl.Expr, /) -> pl.Expr:
    """Each URL serialised with "exclude fragment" (URL Standard §4.5).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_fragment().to_list()
    ['http://a/p?x=1']
    """


def cut_query_and_fragment(expr: str | pl.Expr, /) -> pl.Expr:
    """Each URL serialised without its query and its fragment.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["HTTP://a/p?x=1#f"]).url.cut_query_and_fragment().to_list()
    ['http://a/p']
    """


def domain_without_www(expr: str | pl.Expr, /) -> pl.Expr:
    """The host of each URL without a leading ``www.`` label.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://WWW.a.com/", "http://www2.a.com/"]).url.domain_without_www().to_list()
    ['a.com', 'www2.a.com']
    """


def cut_www(expr: str | pl.Expr, /) -> pl.Expr:
    """Each URL serialised with its host's leading ``www.`` label removed.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://www.a.com/x?y#z"]).url.cut_www().to_list()
    ['https://a.com/x?y#z']
    """


def hierarchy(expr: str | pl.Expr, /) -> pl.Expr:
    """Each URL cut after each run of ``/`` in its path, then with its query (no fragment).

    A URL with an opaque path (``mailto:``) has none.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://a.com/b/c?d=1#e"]).url.hierarchy().to_list()
    [['https://a.com/', 'https://a.com/b/', 'https://a.com/b/c', 'https://a.com/b/c?d=1']]
    """


def path_hierarchy(expr: str | pl.Expr, /) -> pl.Expr:
    """The levels of ``hierarchy`` without the scheme and authority, the root left out.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["https://a.com/b/c?d=1"]).url.path_hierarchy().to_list()
    [['/b/', '/b/c', '/b/c?d=1']]
    """


def query_param_names(expr: str | pl.Expr, /) -> pl.Expr:
    """The decoded names of each query's parameters, in order (URL Standard §5.1).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a/?q=1&id=2&q=3&%C3%A9"]).url.query_param_names().to_list()
    [['q', 'id', 'q', 'é']]
    """


def encode_component(expr: str | pl.Expr, /) -> pl.Expr:
    """Each text percent-encoded as a URL component (URL Standard §1.3, component set).

    What ``encodeURIComponent`` gives: UTF-8, every code point but ASCII letters, digits
    and ``-._~!'()*`` escaped.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["a b/é?&=~"]).url.encode_component().to_list()
    ['a%20b%2F%C3%A9%3F%26%3D~']
    """


def decode_component(expr: str | pl.Expr, /) -> pl.Expr:
    """Each text percent-decoded, its bytes read as UTF-8 (U+FFFD for invalid ones).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["a%20b%2F%C3%A9+%zz"]).url.decode_component().to_list()
    ['a b/é+%zz']
    """


def encode_form_component(expr: str | pl.Expr, /) -> pl.Expr:
    """Each text as the application/x-www-form-urlencoded serializer writes it (§5.2).

    >>> import polars as pl, urlnorm
    >>> pl.Series(["a b/é~*"]).url.encode_form_component().to_list()
    ['a+b%2F%C3%A9%7E*']
    """


def decode_form_component(expr: str | pl.Expr, /) -> pl.Expr:
    """Each text as the application/x-www-form-urlencoded parser reads it (§5.1): ``+`` a space.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["a+b%2B%C3%A9"]).url.decode_form_component().to_list()
    ['a b+é']
    """


def error(expr: str | pl.Expr, /, profile: str | Profile | None = None, mode: str = 'whatwg', invalid_utf8: str = 'error') -> pl.Expr:
    """The error code of each invalid URL, null for valid ones and null inputs.

    With ``profile`` the code is that of :func:`urlnorm.normalize`, without it that of
    :func:`urlnorm.split` in ``mode``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a:99999/", "http://a/", None]).url.error().to_list()
    ['port-out-of-range', None, None]
    """


def is_valid(expr: str | pl.Expr, /, profile: str | Profile | None = None, mode: str = 'whatwg', invalid_utf8: str = 'error') -> pl.Expr:
    """Whether each URL parses (null for null input); see ``error``.

    >>> import polars as pl, urlnorm
    >>> pl.Series(["http://a:99999/", "http://a/", None]).url.is_valid().to_list()
    [False, True, None]
    """

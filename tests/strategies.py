"""Hypothesis strategies for URL-like strings: the pieces where parsers disagree."""

from __future__ import annotations

from hypothesis import strategies as st

SCHEMES = ["http", "HTTPS", "ws", "wss", "ftp", "file", "sc", "mailto", "web+x", "h1"]
IDN_LABELS = ["bücher", "faß", "ελληνικά", "例え", "пример", "xn--bcher-kva", "XN--Fa-hia"]
ASCII_LABEL = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9-]{0,8}[A-Za-z0-9])?", fullmatch=True)
ESCAPE = st.integers(0, 255).map(lambda b: f"%{b:02x}" if b % 2 else f"%{b:02X}")
ODD = st.sampled_from(
    [
        "%",
        "%2",
        "%%",
        "%zz",
        "\\",
        "//",
        "/./",
        "/../",
        "%2e",
        "%2E%2e",
        ".",
        "..",
        "@",
        ":",
        "[",
        "]",
        "?",
        "#",
        "&",
        "=",
        ";",
        "+",
        " ",
        "\t",
        "\n",
        "\x00",
        "\x7f",
        "é",
        "\ufffd",
        "\ud800",
        "\u200d",
        "C:",
        "c|",
        "~",
        "'",
        '"',
        "<",
        "^",
        "`",
        "{",
    ]
)
TEXT_PIECE = st.one_of(ASCII_LABEL, ESCAPE, ODD, st.text(max_size=3))

IPV4 = st.one_of(
    st.tuples(*[st.integers(0, 255)] * 4).map(lambda t: ".".join(map(str, t))),
    st.integers(0, 2**32 - 1).map(lambda n: hex(n)),
    st.integers(0, 2**32 - 1).map(str),
    st.tuples(st.integers(0, 255), st.integers(0, 0xFFFFFF)).map(lambda t: f"0{t[0]:o}.{t[1]}"),
)
IPV6 = (
    st.lists(st.integers(0, 0xFFFF), min_size=8, max_size=8)
    .flatmap(
        lambda ps: st.sampled_from(
            [
                ":".join(f"{p:x}" for p in ps),
                ":".join(f"{p:X}" for p in ps[:3]) + "::" + f"{ps[7]:x}",
                "::" + ":".join(f"{p:x}" for p in ps[5:]),
                "::ffff:1.2.3.4",
                "::",
            ]
        )
    )
    .map(lambda s: f"[{s}]")
)
HOST = st.one_of(
    st.lists(st.one_of(ASCII_LABEL, st.sampled_from(IDN_LABELS)), min_size=1, max_size=4).map(
        ".".join
    ),
    IPV4,
    IPV6,
    st.lists(TEXT_PIECE, max_size=3).map("".join),
)
PORT = st.one_of(
    st.just(""),
    st.sampled_from([":", ":80", ":443", ":21", ":8080", ":0"]),
    st.integers(0, 70000).map(lambda p: f":{p}"),
)
USERINFO = st.one_of(st.just(""), st.lists(TEXT_PIECE, max_size=3).map(lambda p: "".join(p) + "@"))
PATH = st.lists(
    st.one_of(st.sampled_from(["", ".", "..", "%2e", "a", "b"]), TEXT_PIECE), max_size=6
).map(lambda segs: "".join("/" + s for s in segs))
OPTIONAL_PART = st.one_of(st.just(""), st.lists(TEXT_PIECE, max_size=4).map("".join))

URLISH = st.builds(
    lambda scheme, slashes, userinfo, host, port, path, query, fragment, pad: (
        f"{pad}{scheme}:{slashes}{userinfo}{host}{port}{path}{query}{fragment}{pad}"
    ),
    st.sampled_from(SCHEMES),
    st.sampled_from(["//", "//", "/", "", "\\\\", "///"]),
    USERINFO,
    HOST,
    PORT,
    PATH,
    OPTIONAL_PART.map(lambda q: "" if not q else "?" + q),
    OPTIONAL_PART.map(lambda f: "" if not f else "#" + f),
    st.sampled_from(["", " ", "\x00", "\t"]),
)
ANY_TEXT = st.one_of(URLISH, st.text(), st.lists(TEXT_PIECE).map("".join))

# URLs near the edges of the engine's fast tiers: mixed case, ports, dots, escapes, numbers.
EDGE_SCHEME = st.sampled_from(
    ["http", "HTTP", "https", "Https", "ws", "wss", "ftp", "FTP", "sc", "file", "FILE", "File"]
)
EDGE_LABEL = st.sampled_from(
    [
        "www",
        "WWW2",
        '"www',
        "a$b",
        "exa mple",
        "a<b",
        "a\x01",
        "bücher",
        "ＥＸＡＭＰＬＥ",
        "１",
        "ｌｏｃａｌｈｏｓｔ",
        "\u0301a",
        "faß",
        "ü",
        "x\u200d",
        "example",
        "EXAMPLE",
        "a",
        "xn--bcher-kva",
        "0x7f",
        "1",
        "09",
        "a_b",
        "-a",
        "b-",
        "com",
        "",
        "localhost",
        "LocalHost",
        "c:",
        "C|",
    ]
)
EDGE_HOST = st.one_of(
    st.lists(EDGE_LABEL, min_size=1, max_size=4).map(".".join),
    st.sampled_from(["1.2.3.4", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3.4.", "0.0.0.0"]),
)
EDGE_PORT = st.sampled_from(
    [
        "",
        ":",
        ":80",
        ":443",
        ":21",
        ":080",
        ":0",
        ":8080",
        ":59999",
        ":60000",
        ":65535",
        ":65536",
        ":99999",
        ":00000",
    ]
)
EDGE_SEGMENT = st.sampled_from(
    [
        "x;jsessionid=1",
        ";JSESSIONID=a;b=1",
        # ASP.NET cookieless sessions: whole, with letters, short, and the page they need.
        "(S(lit3py55t21z5v55vlm25s55))",
        "(a(ABCDEFGHIJKLMNOPQRSTUVWX)S(lit3py55t21z5v55vlm25s55))",
        "(lit3py55t21z5v55vlm25s55)",
        "(S(lit3py55t21z5v55vlm25s5))",
        "(S(lit3py55t21z5v55vlm25s55)",
        "page.aspx",
        "x.ASPX",
        ".aspx",
        "C:",
        "c|",
        "a|b",
        "",
        "a",
        ".",
        "..",
        "...",
        ".a",
        "..a",
        "a.",
        "%2e",
        "%2E%2e",
        "%7e",
        "%7E",
        "%41",
        "%2F",
        "%2f",
        "%20",
        "%",
        "%zz",
        "%4",
        "a'b",
        'a"b',
        "a<b",
        "^",
        "{}",
        "|",
        "\\",
        "`",
        "~",
        "=&",
    ]
)
EDGE_URL = st.builds(
    lambda scheme, host, port, segs, query, frag, pad: (
        f"{pad}{scheme}://{host}{port}{''.join('/' + s for s in segs)}{query}{frag}{pad}"
    ),
    EDGE_SCHEME,
    EDGE_HOST,
    EDGE_PORT,
    st.lists(EDGE_SEGMENT, max_size=4),
    st.sampled_from(
        [
            "",
            "?",
            "?a=1&b=%2F",
            "?q=%7e",
            "?x='y'",
            "?a b",
            "?#",
            "?b=2&a=1&&a=0",
            "?utm_source=x&gclid=1&k",
            "?SID=1&mysid=2&ASPSESSIONIDX=3",
            "?=&=x",
        ]
    ),
    st.sampled_from(["", "#", "#f", "#a#b", "#%7E", "#`"]),
    st.sampled_from(["", "", "", " ", "\t", "\x00 "]),
)
COLUMN_VALUE = st.one_of(EDGE_URL, URLISH, ANY_TEXT, st.none()).filter(
    lambda v: v is None or not any("\ud800" <= c <= "\udfff" for c in v)
)

# Labels that meet the Public Suffix List's rules: wildcard (*.ck, *.kobe.jp), exception
# (!www.ck, !city.kobe.jp), private (blogspot.com, github.io, s3.amazonaws.com), case, empty.
PSL_LABELS = st.sampled_from(
    [
        "ck",
        "www.ck",
        "co",
        "uk",
        "jp",
        "kobe",
        "city",
        "blogspot",
        "com",
        "github",
        "io",
        "example",
        "surge",
        "sh",
        "s3",
        "amazonaws",
        "bd",
        "test",
        "a",
        "WWW",
        "www2",
        "Kobe",
        "",
        "xn--p1ai",
    ]
)

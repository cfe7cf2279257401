"""What the SQL front-ends are checked on: inputs, and the Polars expression of each function."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from conftest import load_wpt

import urlnorm  # noqa: F401  (registers the url namespace)
from urlnorm.core.profiles import PROFILES
from urlnorm.sql import PARSE_FIELDS

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
# Rows no URL parser should stop on: controls, a lone escape, a huge string, nulls, empties.
DIRTY = [
    None,
    "",
    " ",
    "http://exa mple.com/",
    "http://a:99999/",
    "http://[1",
    "\x00http://a/\x7f",
    "https://a..b/%",
    "http://a/" + "x" * 100_000,
    "javascript:alert(1)",
    "HTTP://www.Example.COM:80/a/./b/../c?utm_source=x&b=2&a=1#frag",
    "http://user:pw@0x7f.1:8080/%7e%2F?q=%zz",
    "https://bücher.example/café?q=x+y&q=2",
]


def sql_inputs() -> list[str | None]:
    """WPT's inputs, the sample URLs, the sample lake column (a tenth null), dirty rows."""
    wpt = [case["input"] for case in load_wpt("urltestdata.json")]
    sample = (ROOT / "sample-data" / "urls.txt").read_text("utf-8").splitlines()
    lake = pl.read_parquet(ROOT / "sample-data" / "lake.parquet")["url"].to_list()
    corpora = []
    if CORPORA.is_dir():  # a sample of the real lists, where the shared data is present
        for path in sorted(CORPORA.glob("*.txt")):
            corpora += path.read_text("utf-8-sig").splitlines()[:2_000]
    return [*wpt, *sample, *lake, *corpora, *DIRTY]


PROFILE_NAMES = sorted(PROFILES)


url = pl.col("u").url
CASES = {
    "url_normalize(u)": url.normalize(),
    "url_error(u)": url.error(),
    "url_split(u)": url.split(),
    "url_parse(u)": url.parse(fields=PARSE_FIELDS),
    "url_key_hash(u)": url.parse(fields=["key_hash"]).struct.field("key_hash"),
    "url_host(u)": url.host(),
    "url_registered_domain(u)": url.registered_domain(),
    "url_public_suffix(u)": url.public_suffix(),
    "url_query_param(u, 'q')": url.query_param("q"),
    "url_surt(u)": url.surt(),
}
PROFILED = {
    "url_normalize(u, '{p}')": lambda p: url.normalize(p),
    "url_error(u, '{p}')": lambda p: url.error(p),
    "url_parse(u, '{p}')": lambda p: url.parse(p, PARSE_FIELDS),
    "url_key_hash(u, '{p}')": lambda p: url.parse(p, ["key_hash"]).struct.field("key_hash"),
    "url_surt(u, '{p}')": lambda p: url.surt(p),
}


def polars_values(inputs: list[str | None], expression: pl.Expr) -> list:
    """``expression`` over the column ``u`` of ``inputs``, as Python values."""
    frame = pl.DataFrame({"u": inputs}, schema={"u": pl.String})
    return frame.select(expression).to_series().to_list()

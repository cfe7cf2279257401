"""Profile files and per-host rules: round trips, every front-end, and clear errors."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import urlnorm
from tests.test_cli import cli
from urlnorm.core.profile_files import dumps

SPEC = urlnorm.ProfileSpec(
    name="shop",
    base="crawl",
    add=("drop_trailing_slash",),
    remove=("strip_www",),
    crawl=(("fold_https_to_http", True), ("tracking", ("gclid", "ref"))),
    hosts=(
        (
            "img.example.com",
            urlnorm.HostRules(aliases=("img1.example.com", "img2.example.com")),
        ),
        (
            "shop.example.com",
            urlnorm.HostRules(
                drop_params=("print",),
                path_aliases=(("/index.html", "/"),),
                case_insensitive_path=True,
            ),
        ),
        ("news.example.com", urlnorm.HostRules(keep_params=("id",), drop_trailing_slash=True)),
    ),
)
# (input, under SPEC): each host rule changes the first of its pair and leaves the second.
CASES = [
    ("https://shop.example.com/A/index.html?print=1&id=2", "http://shop.example.com/a/?id=2"),
    ("http://shop.example.com/A/index.htm?id=2", "http://shop.example.com/a/index.htm?id=2"),
    ("http://img2.example.com/x.png", "http://img.example.com/x.png"),
    ("http://img3.example.com/x.png", "http://img3.example.com/x.png"),
    ("http://news.example.com/a/?id=1&page=2&ref=x", "http://news.example.com/a?id=1"),
    ("http://other.example.com/A/?page=2&print=1", "http://other.example.com/A?page=2&print=1"),
    ("http://www.example.com/", "http://www.example.com/"),  # strip_www was removed
]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "profile.toml"
    path.write_text(text, "utf-8")
    return path


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "shop.toml"
    urlnorm.write_spec(SPEC, path)
    assert urlnorm.read_spec(path) == SPEC
    assert dumps(urlnorm.read_spec(path)) == path.read_text("utf-8")


@pytest.mark.parametrize(("url", "expected"), CASES)
def test_host_rules(tmp_path: Path, url: str, expected: str) -> None:
    urlnorm.write_spec(SPEC, tmp_path / "shop.toml")
    profile = urlnorm.load_profile(tmp_path / "shop.toml")
    assert profile.name == "shop"
    assert profile.normalize(url) == expected


def test_path_wherever_a_profile_name_goes(tmp_path: Path, engine_path: str) -> None:
    path = tmp_path / "shop.toml"
    urlnorm.write_spec(SPEC, path)
    urls = pl.Series([u for u, _ in CASES])
    assert urls.url.normalize(str(path)).to_list() == [e for _, e in CASES]
    assert urlnorm.normalize(CASES[0][0], str(path)) == CASES[0][1]
    frame = urlnorm.polars.dedup(
        pl.DataFrame({"url": [CASES[0][0], "http://SHOP.example.com/a/index.html?id=2&print=9"]}),
        "url",
        str(path),
    )
    assert frame.height == 1


def test_cli_and_pipeline_take_a_profile_file(tmp_path: Path) -> None:
    path = tmp_path / "shop.toml"
    urlnorm.write_spec(SPEC, path)
    run = cli("normalize", "-", "-", "--format", "text", "--profile", str(path), stdin=CASES[2][0])
    assert run.returncode == 0, run.stderr
    assert run.stdout == CASES[2][1] + "\n"
    pipeline = cli("pipeline", "crawl-dedup", "--profile", str(path), cwd=tmp_path)
    assert pipeline.returncode == 0, pipeline.stderr
    refused = cli("pipeline", "clickstream", "--profile", str(path), cwd=tmp_path)
    assert refused.returncode == 2 and "takes no profile" in refused.stderr


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        ('base = "crawl"\n\n[hosts."a.com"]\ndrop_param = ["x"]\n', 4, 'hosts."a.com".drop_param'),
        ('base = "crawl"\n[hosts."a.com"]\ndrop_params = "x"\n', 3, 'hosts."a.com".drop_params'),
        ('base = "crawl"\nremove = ["nope"]\n', 2, "remove"),
        ('name = "x"\nadd = ["no_such_rule"]\n', 2, "add"),
        ('base = "rfc3986"\n[crawl]\ntracking = ["a"]\n', 2, "crawl"),
        ('base = "nope"\n', 1, "base"),
        ('base = "crawl\n', 1, ""),
        ('[hosts."a.com"]\npath_aliases = [["/x"]]\n', 2, 'hosts."a.com".path_aliases'),
    ],
)
def test_malformed_file_is_one_line_naming_file_line_and_key(
    tmp_path: Path, text: str, line: int, key: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(urlnorm.ProfileFileError) as caught:
        urlnorm.load_profile(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: {key}") and "\n" not in message
    run = cli("normalize", "-", "-", "--profile", str(path), stdin="http://a/")
    assert run.returncode == 2
    assert run.stderr.strip() == f"urlnorm: error: {message}"


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(urlnorm.ProfileFileError, match="cannot read"):
        urlnorm.load_profile(tmp_path / "missing.toml")


NAMES = st.lists(st.sampled_from(["id", "ref", "", "Ref", "q", "a", "%41"]), max_size=3).map(tuple)
ALIASES = st.lists(
    st.tuples(
        st.sampled_from(["/index.html", "/", "x", "", "/A/"]), st.sampled_from(["/", "", "/y"])
    ),
    max_size=2,
).map(tuple)
HOST_RULES = st.builds(
    urlnorm.HostRules,
    drop_params=NAMES,
    keep_params=st.none() | NAMES,
    path_aliases=ALIASES,
    drop_trailing_slash=st.booleans(),
    case_insensitive_path=st.booleans(),
)
HOSTS = ["a.com", "b.a.com", "img1.a.com", "img2.a.com", "x.org", "xn--9ca.com"]
URL = st.builds(
    lambda host, path, query: f"http://{host}{path}{query}",
    st.sampled_from([*HOSTS, "WWW.a.com", "é.com", "other.net"]),
    st.sampled_from(["", "/", "/A/index.html", "/a/B/", "/x", "/%7Ea/Index.HTML"]),
    st.lists(st.sampled_from(["id=1", "ref=2", "", "Ref", "q=%41", "a=b=c"]), max_size=4).map(
        lambda p: "?" + "&".join(p) if p else ""
    ),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rules=st.dictionaries(st.sampled_from(HOSTS), HOST_RULES, max_size=4),
    mirrors=st.dictionaries(st.sampled_from(HOSTS), st.sampled_from(HOSTS), max_size=2),
    urls=st.lists(URL, min_size=1, max_size=20),
)
def test_host_rules_kernel_equals_core(
    engine_path: str,
    rules: dict[str, urlnorm.HostRules],
    mirrors: dict[str, str],
    urls: list[str],
) -> None:
    for alias, host in mirrors.items():  # a mirror of a host that has rules, and no rules itself
        if host in rules and alias not in rules and alias != host:
            rules[host] = replace(rules[host], aliases=(*rules[host].aliases, alias))
    profile = urlnorm.ProfileSpec(hosts=tuple(rules.items())).profile()
    got = pl.Series(urls).url.normalize(profile).to_list()
    assert got == [profile.normalize(u) for u in urls]

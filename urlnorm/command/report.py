"""``urlnorm report``: one self-contained HTML page about a column of URLs.

The page needs no network to open: its charts are inline SVG drawn by matplotlib (the
``report`` extra), its style is inline CSS, and nothing is fetched. It shows the rows and the
valid share with the error codes, schemes and ports, host types, the top registered domains,
the duplicates under a profile with the rows each rule merged, and the most common query
parameters; given the views' referrers, the views by GA4 default channel group.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass
from datetime import UTC, datetime

import polars as pl

from urlnorm import engine
from urlnorm.core.profile_files import get_profile
from urlnorm.engine import attribution
from urlnorm.polars import UrlSeriesNamespace, dedup_summary

TOP = 15
STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 64rem; color: #222; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } .source { color: #666; margin-top: 0; }
table.summary { border-collapse: collapse; margin: 1rem 0 2rem; }
table.summary td { padding: .25rem 1.2rem .25rem 0; } table.summary td.n { text-align: right; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(28rem, 1fr)); gap: 1.5rem; }
figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: .3rem; }
figure svg { width: 100%; height: auto; } p.empty { color: #666; }
"""


@dataclass(frozen=True)
class Chart:
    """One chart: its title, and (label, count) bars from the largest down."""

    title: str
    bars: list[tuple[str, int]]


@dataclass(frozen=True)
class Summary:
    """What the report says about a column."""

    rows: int
    invalid: int
    distinct_hosts: int
    duplicates: int
    profile: str
    charts: list[Chart]


def _counts(values: pl.Series, top: int = TOP) -> list[tuple[str, int]]:
    """The ``top`` most common non-null values and their counts."""
    counts = values.drop_nulls().value_counts(sort=True, name="n").head(top)
    return [(str(v), int(n)) for v, n in counts.rows()]


REPORT_FIELDS = ("error", "normalized", "scheme", "host", "port", "host_type", "registered_domain")


def summarise(
    urls: pl.Series, profile: str = "canonical", referrers: pl.Series | None = None
) -> Summary:
    """Count what the report shows: one pass of ``profile`` over ``urls``.

    The record's charts (schemes, ports, host types, domains) are of the normalised URLs;
    query parameters are counted once per distinct URL, weighted by its rows. With
    ``referrers`` (each view's), the views by channel, from one pass over both columns.
    """
    parsed = engine.parse(urls, profile, REPORT_FIELDS).frame
    errors, keys = parsed.get_column("error"), parsed.get_column("normalized")
    ports = parsed.get_column("port").cast(pl.String).fill_null("(scheme default)")
    merged = dedup_summary(urls, profile, keys=keys).filter(pl.col("merged") > 0)
    present = urls.drop_nulls()
    same = [("same spelling", present.len() - present.n_unique())]
    charts = [
        Chart("Error codes", _counts(errors)),
        Chart("Schemes", _counts(parsed.get_column("scheme"))),
        Chart("Ports", _counts(ports.filter(errors.is_null()))),
        Chart("Host types", _counts(parsed.get_column("host_type"))),
        Chart(f"Top {TOP} registered domains", _counts(parsed.get_column("registered_domain"))),
        Chart(
            f"Duplicates: same spelling, and merged by each step of {profile}",
            same + [(r, int(n)) for r, n in merged.rows()],
        ),
        Chart(f"Top {TOP} query parameters", _parameter_counts(present)),
    ]
    if referrers is not None:
        channels = attribution.channel_group(urls, referrers)
        charts.append(Chart("Views by channel (GA4 default channel group)", _counts(channels)))
    return Summary(
        rows=urls.len(),
        invalid=int(errors.is_not_null().sum()),
        distinct_hosts=parsed.get_column("host").n_unique(),
        duplicates=present.len() - keys.drop_nulls().n_unique(),
        profile=get_profile(profile).name,
        charts=charts,
    )


def _parameter_counts(urls: pl.Series) -> list[tuple[str, int]]:
    """The most common query parameter names, each distinct URL's weighted by its rows."""
    distinct = urls.value_counts(name="rows")
    params = UrlSeriesNamespace(distinct.get_column(urls.name)).query_params()
    keys = (
        distinct.with_columns(params.alias("p"))
        .explode("p")
        .select(pl.col("p").struct.field("key"), "rows")
    )
    counts = keys.drop_nulls("key").group_by("key").agg(pl.col("rows").sum().alias("n"))
    top = counts.sort(["n", "key"], descending=[True, False]).head(TOP)
    return [(str(k), int(n)) for k, n in top.rows()]


def svg(chart: Chart) -> str:
    """A horizontal bar chart as an inline ``<svg>`` element (text drawn as paths)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    labels = [label if len(label) <= 40 else label[:39] + "…" for label, _ in chart.bars]
    counts = [n for _, n in chart.bars]
    height = 0.9 + 0.32 * len(labels)
    fig, ax = plt.subplots(figsize=(6.4, height))
    bars = ax.barh(range(len(labels)), counts, color="#3b73b9")
    ax.set_yticks(range(len(labels)), labels, fontsize=9)
    ax.invert_yaxis()
    ax.bar_label(bars, labels=[f"{n:,}" for n in counts], fontsize=8, padding=3)
    ax.spines[["top", "right"]].set_visible(False)
    ax.margins(x=0.15)
    fig.tight_layout()
    out = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "urlnorm", "svg.fonttype": "path"}):
        fig.savefig(out, format="svg")
    plt.close(fig)
    text = out.getvalue()
    return text[text.index("<svg") :]


def _figure(chart: Chart) -> str:
    title = html.escape(chart.title)
    body = svg(chart) if chart.bars else '<p class="empty">none</p>'
    return f"<figure><figcaption>{title}</figcaption>{body}</figure>"


def render(summary: Summary, source: str) -> str:
    """The report as one HTML document."""
    share = summary.invalid / max(summary.rows, 1)
    rows = [
        ("Rows", f"{summary.rows:,}"),
        ("Valid", f"{summary.rows - summary.invalid:,} ({1 - share:.2%})"),
        ("Invalid", f"{summary.invalid:,} ({share:.2%})"),
        ("Distinct hosts", f"{summary.distinct_hosts:,}"),
        (f"Duplicates under {summary.profile}", f"{summary.duplicates:,}"),
    ]
    table = "".join(f'<tr><td>{k}</td><td class="n">{v}</td></tr>' for k, v in rows)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    figures = "".join(_figure(c) for c in summary.charts)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>urlnorm report: {html.escape(source)}</title><style>{STYLE}</style></head>"
        f"<body><h1>URL report</h1><p class='source'>{html.escape(source)} · {when}</p>"
        f'<table class="summary">{table}</table><div class="charts">{figures}</div>'
        "</body></html>\n"
    )

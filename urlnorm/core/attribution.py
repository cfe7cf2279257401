"""A visit's source, medium and campaign as Google Analytics 4 derives them from its URLs.

GA4 takes a session's traffic source from, in turn: Google Ads auto-tagging (a ``gclid``,
``gbraid`` or ``wbraid`` gives ``google / cpc``, and wins over manual tags: "[GA4] Manual
tagging and auto-tagging", support.google.com/analytics/answer/11242870); the utm
parameters; then the page's referrer (answer 11242841): a search engine gives its name and
``organic``, an AI assistant ``ai-assistant`` (answer 9164320, May 2026), any other site its
host and ``referral``; and with none of these, ``(direct) / (none)``. The campaign is the utm
campaign, else GA4's placeholder for the case. A referrer on the site itself sets nothing new
(GA4's unwanted referrals): here its fields are null, for the session's earlier source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import campaign as campaign_core
from . import referrers
from .channels import AI_MEDIUM, fold

NOT_SET = "(not set)"


@dataclass(frozen=True)
class SourceMedium:
    """A visit's source, medium and campaign (all null for an internal referrer)."""

    source: str | None
    medium: str | None
    campaign: str | None


def _site(host: str) -> str | None:
    """The referring site as GA4 names a referral's source: its host without ``www.``."""
    return host.removeprefix("www.") or None


# GA4 names a search engine's sessions by the engine (google, bing, yahoo), not its host: the
# first word of its name in ASCII lower case, without the "!" of "Yahoo!".
ENGINE_NAME = r"^([^ \t\n\r\f\v!]+)"


def engine_name(name: str | None) -> str | None:
    """A search engine's name as GA4 spells its source.

    >>> engine_name("Google Images"), engine_name("Yahoo!"), engine_name("DuckDuckGo")
    ('google', 'yahoo', 'duckduckgo')
    """
    found = re.match(ENGINE_NAME, fold(name or ""))
    return found.group(1) if found else None


def _from_referrer(
    url: str | None,
    page: str,
    internal: tuple[frozenset[str], tuple[str, ...]],
    db: referrers.Referrers,
) -> SourceMedium:
    found = referrers.referral(url, page, internal, db)
    if found is None:
        return SourceMedium("(direct)", "(none)", "(direct)")
    if found.medium == referrers.INTERNAL:
        return SourceMedium(None, None, None)
    host = (referrers.host_and_path(url or "") or ("", ""))[1]
    if found.medium == "search":
        return SourceMedium(engine_name(found.source), "organic", "(organic)")
    if found.medium == "chatbot":
        return SourceMedium(_site(host), AI_MEDIUM, "(ai-assistant)")
    return SourceMedium(_site(host), "referral", "(referral)")


def source_medium(
    page: str,
    referrer: str | None,
    internal: tuple[frozenset[str], tuple[str, ...]] = (frozenset(), ()),
    db: referrers.Referrers | None = None,
) -> SourceMedium | None:
    """The visit's source, medium and campaign; None for an invalid page.

    >>> source_medium("https://shop.example/?gclid=x&utm_source=news", None)
    SourceMedium(source='google', medium='cpc', campaign='(not set)')
    >>> source_medium("https://shop.example/?utm_medium=email", "https://www.bing.com/")
    SourceMedium(source='(not set)', medium='email', campaign='(not set)')
    >>> source_medium("https://shop.example/", "https://www.google.de/search?q=x").source
    'google'
    >>> source_medium("https://shop.example/", "https://news.example/a").medium
    'referral'
    """
    found = campaign_core.campaign(page)
    if found is None:
        return None
    if found.network == "Google":
        return SourceMedium("google", "cpc", found.campaign or NOT_SET)
    if found.source or found.medium or found.campaign:
        return SourceMedium(
            found.source or NOT_SET, found.medium or NOT_SET, found.campaign or NOT_SET
        )
    return _from_referrer(referrer, page, internal, db or referrers.bundled())

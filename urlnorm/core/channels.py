"""Google Analytics 4's default channel group, rule by rule, in its published order.

GA4 puts every session in one channel from its source, medium and campaign name ("[GA4]
Default channel group", support.google.com/analytics/answer/9756891, the rules for manual
traffic). The rules are taken in the table's order and the first that holds wins; a session no
rule takes is ``Unassigned``. They are not case sensitive (the same page), so the three values
are compared in ASCII lower case (every letter the rules spell is ASCII). "A list of search
(social, shopping, video) sites" is GA4's published source-category list, bundled as
``urlnorm/data/ga4_source_categories.csv`` (:func:`source_categories`). "Matches regex" is
a full match, as GA4's regular expressions are. ``AI Assistant`` is the channel GA4 added in
May 2026 for the medium ``ai-assistant`` (answer 9164320); Google has not said where it sits
in the order, so it comes after the source-list rules and before ``Referral``, the earliest
place where only its medium decides.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

CATEGORIES = ("search", "social", "shopping", "video")
PAID_MEDIUM = r"^(.*cp.*|ppc|retargeting|paid.*)$"
SHOPPING_CAMPAIGN = r"^(.*(([^a-df-z]|^)shop|shopping).*)$"
VIDEO_MEDIUM = r"^(.*video.*)$"
DISPLAY_MEDIA = ("display", "banner", "expandable", "interstitial", "cpm")
SOCIAL_MEDIA = ("social", "social-network", "social-media", "sm", "social network", "social media")
REFERRAL_MEDIA = ("referral", "app", "link")
EMAIL = ("email", "e-mail", "e_mail", "e mail")
DIRECT_SOURCE, DIRECT_MEDIA = "(direct)", ("(not set)", "(none)")
AI_MEDIUM = "ai-assistant"
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(text: str) -> str:
    """``text`` in ASCII lower case (other characters as they are).

    >>> fold("Google CPC É")
    'google cpc É'
    """
    return text.translate(ASCII_LOWER)


@cache
def source_categories() -> Mapping[str, str]:
    """GA4's source categories (``search``, ``social``, ``shopping``, ``video``) by source.

    >>> source_categories()["google"], source_categories()["l.facebook.com"]
    ('search', 'social')
    """
    text = resources.files("urlnorm").joinpath("data/ga4_source_categories.csv").read_text("utf-8")
    rows = csv.DictReader(text.splitlines())
    prefix = "SOURCE_CATEGORY_"
    return {
        row["source"].lower(): row["source_category"].removeprefix(prefix).lower() for row in rows
    }


@dataclass(frozen=True)
class Visit:
    """A session's source, medium and campaign in lower case, and its source's category."""

    source: str
    medium: str
    campaign: str
    category: str | None

    def medium_matches(self, pattern: str) -> bool:
        """Whether the medium matches ``pattern`` whole."""
        return re.fullmatch(pattern, self.medium) is not None

    @property
    def paid(self) -> bool:
        """Whether the medium is a paid one."""
        return self.medium_matches(PAID_MEDIUM)

    @property
    def shopping(self) -> bool:
        """A shopping source, or a campaign named for shopping."""
        return (
            self.category == "shopping"
            or re.fullmatch(SHOPPING_CAMPAIGN, self.campaign) is not None
        )


# (channel, rule), in GA4's order.
RULES: tuple[tuple[str, Callable[[Visit], bool]], ...] = (
    ("Direct", lambda v: v.source == DIRECT_SOURCE and v.medium in DIRECT_MEDIA),
    ("Cross-network", lambda v: "cross-network" in v.campaign),
    ("Paid Shopping", lambda v: v.shopping and v.paid),
    ("Paid Search", lambda v: v.category == "search" and v.paid),
    ("Paid Social", lambda v: v.category == "social" and v.paid),
    ("Paid Video", lambda v: v.category == "video" and v.paid),
    ("Display", lambda v: v.medium in DISPLAY_MEDIA),
    ("Paid Other", lambda v: v.paid),
    ("Organic Shopping", lambda v: v.shopping),
    ("Organic Social", lambda v: v.category == "social" or v.medium in SOCIAL_MEDIA),
    ("Organic Video", lambda v: v.category == "video" or v.medium_matches(VIDEO_MEDIUM)),
    ("Organic Search", lambda v: v.category == "search" or v.medium == "organic"),
    ("AI Assistant", lambda v: v.medium == AI_MEDIUM),
    ("Referral", lambda v: v.medium in REFERRAL_MEDIA),
    ("Email", lambda v: v.source in EMAIL or v.medium in EMAIL),
    ("Affiliates", lambda v: v.medium == "affiliate"),
    ("Audio", lambda v: v.medium == "audio"),
    ("SMS", lambda v: v.source == "sms" or v.medium == "sms"),
    (
        "Mobile Push Notifications",
        lambda v: (
            v.medium.endswith("push")
            or "mobile" in v.medium
            or "notification" in v.medium
            or v.source == "firebase"
        ),
    ),
)
CHANNELS = (*(name for name, _ in RULES), "Unassigned")


def channel_group(source: str | None, medium: str | None, campaign: str | None) -> str | None:
    """The GA4 default channel of a session's source, medium and campaign name.

    A missing value is an empty one; all three missing gives None.

    >>> channel_group("google", "cpc", None), channel_group("l.facebook.com", "referral", None)
    ('Paid Search', 'Organic Social')
    >>> channel_group("newsletter", "email", "spring"), channel_group("x", "y", "z")
    ('Email', 'Unassigned')
    """
    if source is None and medium is None and campaign is None:
        return None
    source, medium = fold(source or ""), fold(medium or "")
    visit = Visit(source, medium, fold(campaign or ""), source_categories().get(source))
    return next((name for name, rule in RULES if rule(visit)), "Unassigned")

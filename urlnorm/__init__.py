"""urlnorm: bulk URL parsing, normalisation and deduplication.

The scalar API works on one URL at a time with the pure-Python reference core::

    >>> import urlnorm
    >>> urlnorm.normalize("HTTP://Example.com:80/a/./b", profile="canonical")
    'http://example.com/a/b'
"""

import urlnorm.polars  # noqa: F401  (registers the ``url`` namespace)
from urlnorm.core.api import explain, join, normalize, split
from urlnorm.core.crawl import crawl_profile
from urlnorm.core.errors import URLError
from urlnorm.core.host_rules import HostRules
from urlnorm.core.profile_files import (
    ProfileFileError,
    ProfileSpec,
    load_profile,
    read_spec,
    write_spec,
)
from urlnorm.core.profiles import PROFILES, Profile, Step, get_profile, register
from urlnorm.core.record import URL
from urlnorm.core.rules import RULES, Rule, TextRule
from urlnorm.core.surt import surt
from urlnorm.learn import learn_rules

__all__ = [
    "PROFILES",
    "RULES",
    "URL",
    "HostRules",
    "Profile",
    "ProfileFileError",
    "ProfileSpec",
    "Rule",
    "Step",
    "TextRule",
    "URLError",
    "crawl_profile",
    "explain",
    "get_profile",
    "join",
    "learn_rules",
    "load_profile",
    "normalize",
    "read_spec",
    "register",
    "split",
    "surt",
    "write_spec",
]

"""urlnorm: bulk URL parsing, normalisation and deduplication.

The scalar API works on one URL at a time with the pure-Python reference core::

    >>> import urlnorm
    >>> urlnorm.normalize("HTTP://Example.com:80/a/./b", profile="canonical")
    'http://example.com/a/b'

Importing urlnorm registers the ``url`` namespace on Polars expressions and series: at once
if Polars is loaded, else the moment it is, so that a command or a worker that never touches
Polars (``urlnorm --version``, ``urlnorm explain``) does not pay for loading it.
"""

import importlib
import importlib.util
import sys
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

from urlnorm.core.api import explain, join, normalize, split
from urlnorm.core.crawl import crawl_profile
from urlnorm.core.errors import URLError
from urlnorm.core.filters import Filters, filter_reason, is_crawlable
from urlnorm.core.host_rules import HostRules
from urlnorm.core.profile_files import (
    ProfileFileError,
    ProfileSpec,
    get_profile,
    load_profile,
    read_spec,
    write_spec,
)
from urlnorm.core.profiles import PROFILES, Profile, Step, register
from urlnorm.core.public_suffix import PublicSuffixListError
from urlnorm.core.public_suffix import use_list as use_public_suffix_list
from urlnorm.core.public_suffix import version as psl_version
from urlnorm.core.record import URL
from urlnorm.core.rules import RULES, Rule, TextRule
from urlnorm.core.surt import surt

__all__ = [
    "PROFILES",
    "RULES",
    "URL",
    "Filters",
    "HostRules",
    "Profile",
    "ProfileFileError",
    "ProfileSpec",
    "PublicSuffixListError",
    "Rule",
    "Step",
    "TextRule",
    "URLError",
    "crawl_profile",
    "explain",
    "filter_reason",
    "get_profile",
    "is_crawlable",
    "join",
    "learn_rules",
    "load_profile",
    "normalize",
    "psl_version",
    "read_spec",
    "register",
    "split",
    "surt",
    "use_public_suffix_list",
    "write_spec",
]

# Submodules and names that need Polars, loaded on first use.
_ON_USE = {"learn_rules": "urlnorm.learn"}


def __getattr__(name: str) -> Any:
    if name in _ON_USE:
        return getattr(importlib.import_module(_ON_USE[name]), name)
    if name in ("polars", "arrow", "engine", "io", "spark", "ray", "native", "analytics"):
        return importlib.import_module(f"urlnorm.{name}")
    raise AttributeError(f"module 'urlnorm' has no attribute {name!r}")


class _AfterPolars(MetaPathFinder):
    """Imports urlnorm.polars (which registers the namespace) right after Polars loads."""

    def find_spec(
        self, name: str, path: Any, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """Polars' own spec, its loader made to register the namespace once Polars ran."""
        if name != "polars":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _Registering(spec.loader)
        return spec


class _Registering(Loader):
    def __init__(self, loader: Loader) -> None:
        self.loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        importlib.import_module("urlnorm.polars")


if "polars" in sys.modules:
    importlib.import_module("urlnorm.polars")
else:
    sys.meta_path.insert(0, _AfterPolars())

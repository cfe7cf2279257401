"""urlnorm's pure-Python reference core: no Polars or Arrow imports in this package."""

from . import crawl as crawl  # registers the crawl profile
from . import ia as ia  # registers the ia profile

"""urlnorm's pure-Python reference core: no Polars or Arrow imports in this package."""

"""Ready pipelines for urlnorm's three jobs, each a short module on the public API.

``crawl_dedup``: a crawl frontier to one row per resource, with a merge report.
``clickstream``: page views per registered domain and path, top query parameters, referrers.
``lake``: clean, split and validate a URL column; invalid rows go to a quarantine file.
"""

from pathlib import Path

SAMPLE_DATA = Path(__file__).resolve().parents[1] / "sample-data"

"""What a user chooses among, and the error for an input that cannot be used.

Light on purpose: the command line builds its options from these before it loads Polars, so
that ``urlnorm --version`` and ``urlnorm explain`` start at once.
"""

from __future__ import annotations

# Output formats of the command line and urlnorm.io.write.
WRITERS = ("parquet", "csv", "ndjson", "text")
# Which row of an equivalence class a dedup keeps.
KEEP = ("first", "last", "shortest")
# What bytes that are not UTF-8 become: a null and an error code, or percent-encoded.
INVALID_UTF8 = ("error", "encode")
# Input bytes a batch of a dataset run holds at least: it is written, committed and resumed
# as a unit (large enough for every core and few output files, small enough to lose little).
BATCH_BYTES = 128 << 20
# Output columns a dataset's rows can be sorted by within each file.
SORT_KEYS = ("surt",)
# Column sets the command line adds: Common Crawl's columnar index columns.
CC_INDEX = "cc-index"


class InputError(Exception):
    """A table that cannot be read, or lacks the column asked for; the message is for users."""

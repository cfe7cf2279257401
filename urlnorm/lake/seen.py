"""Incremental dedup: keep only the rows whose key no table of already-seen keys holds.

The crawl-frontier pattern: a new batch of discovered links against every key already in a
table (often the target itself). The seen keys are held as their 64-bit hashes only (8 bytes a
key, the published FNV-1a ``key_hash``), so memory follows the number of keys, not the rows or
their length. A hash match is not taken on trust: the keys behind the matched hashes are read
back and compared, so a collision between two different keys never drops a URL.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from urlnorm.core.profiles import Profile
from urlnorm.polars import UrlExprNamespace

KEY, HASH = "normalized", "key_hash"


@dataclass
class SeenKeys:
    """The hashes of the seen keys, sorted, and the keys this run added.

    ``frames`` are lazy tables with a ``normalized`` column (and ``key_hash`` where stored).
    Membership is a binary search in the sorted hashes: no hash table of every seen key is
    built, so the seen keys cost their 8 bytes each and nothing more.
    """

    profile: str | Profile
    frames: list[pl.LazyFrame]
    hashes: pl.Series = field(default_factory=lambda: pl.Series(HASH, [], pl.UInt64))
    added: list[pl.DataFrame] = field(default_factory=list)

    def load(self) -> None:
        """Read the hashes of every seen key (the ``key_hash`` column, else from the key)."""
        # Each copy of the hashes is as large as all of them: make as few as can be.
        parts = [_hashes(frame, self.profile) for frame in self.frames]
        found = parts[0] if len(parts) == 1 else pl.concat([self.hashes, *parts], rechunk=True)
        del parts
        if found.null_count():
            found = found.drop_nulls()
        found = found.rechunk()
        found.sort(in_place=True)
        self.hashes = found

    def new_rows(self, rows: pl.DataFrame) -> pl.DataFrame:
        """``rows`` whose key is not seen (rows without a key are kept: nothing is lost).

        ``rows`` hold ``normalized`` and ``key_hash``; their keys are distinct already.
        """
        hashed = rows.get_column(HASH)
        matched = contains(self.hashes, hashed)
        if not matched.any():
            return rows
        keys = self._keys_of(hashed.filter(matched).unique())
        return rows.filter(~(matched & rows.get_column(KEY).is_in(keys.implode())))

    def _keys_of(self, hashes: pl.Series) -> pl.Series:
        """The seen keys whose hashes are ``hashes`` (a collision's keys are both here)."""
        wanted = pl.col(HASH).is_in(hashes.implode())
        frames = [
            _with_hash(frame, self.profile).filter(wanted).select(KEY) for frame in self.frames
        ]
        frames += [added.lazy().filter(wanted).select(KEY) for added in self.added]
        return pl.concat(frames).collect(engine="streaming").get_column(KEY)

    def add(self, rows: pl.DataFrame) -> None:
        """Count ``rows``' keys as seen from now on."""
        kept = rows.select(KEY, HASH).drop_nulls()
        self.added.append(kept)
        merged = pl.concat([self.hashes, kept.get_column(HASH)], rechunk=True)
        merged.sort(in_place=True)
        self.hashes = merged


def contains(ordered: pl.Series, values: pl.Series) -> pl.Series:
    """Whether each of ``values`` is in ``ordered`` (sorted), by binary search; null: False.

    >>> ordered = pl.Series([2, 5, 5, 9], dtype=pl.UInt64)
    >>> contains(ordered, pl.Series([5, 1, 9, 10, None], dtype=pl.UInt64)).to_list()
    [True, False, True, False, False]
    """
    if ordered.is_empty():
        return pl.Series(values.name, [False] * values.len(), pl.Boolean)
    at = ordered.search_sorted(values.fill_null(0), side="left")
    found = ordered.gather(at.clip(0, ordered.len() - 1))
    return (found == values).fill_null(False) & (at < ordered.len())


def _with_hash(frame: pl.LazyFrame, profile: str | Profile) -> pl.LazyFrame:
    """``frame``'s keys with their hashes: the stored column, else the key's own hash.

    A stored key is its own normal form (every profile is idempotent), so parsing it again
    under the same profile gives the hash it had when it was written.
    """
    schema = frame.collect_schema()
    if HASH in schema:
        # A table format stores the hash's 64 bits as a signed long (no unsigned types).
        signed = schema[HASH] == pl.Int64
        return frame.select(KEY, pl.col(HASH).reinterpret(signed=False) if signed else HASH)
    parsed = UrlExprNamespace(pl.col(KEY)).parse(profile, (HASH,)).struct.field(HASH)
    return frame.select(KEY, parsed.alias(HASH))


def _hashes(frame: pl.LazyFrame, profile: str | Profile) -> pl.Series:
    return _with_hash(frame, profile).select(HASH).collect(engine="streaming").get_column(HASH)

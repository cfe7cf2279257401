"""Incremental dedup: keep only the rows whose key no table of already-seen keys holds.

The crawl-frontier pattern: a new batch of discovered links against every key already in a
table (often the target itself). The seen keys are held as their 64-bit hashes only (8 bytes a
key, the published FNV-1a ``key_hash``), so memory follows the number of keys, not the rows or
their length. A hash match is not taken on trust: the keys behind the matched hashes are read
back and compared, so a collision between two different keys never drops a URL.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import polars as pl

from urlnorm.core.profiles import Profile
from urlnorm.polars import UrlExprNamespace

KEY, HASH = "normalized", "key_hash"
Hashes = npt.NDArray[np.uint64]


def _no_hashes() -> Hashes:
    return np.empty(0, np.uint64)


@dataclass
class SeenKeys:
    """The hashes of the seen keys, sorted, and the keys this run added.

    ``frames`` are lazy tables with a ``normalized`` column (and ``key_hash`` where stored),
    best one a file. Membership is a binary search in the sorted hashes: no hash table of every
    seen key is built, so the seen keys cost their 8 bytes each and nothing more. The keys
    this run adds are kept apart (``added_hashes``, sorted), so that adding a batch sorts only
    what the run added, never every seen key again.
    """

    profile: str | Profile
    frames: list[pl.LazyFrame]
    hashes: Hashes = field(default_factory=_no_hashes)
    added_hashes: Hashes = field(default_factory=_no_hashes)
    added: list[pl.DataFrame] = field(default_factory=list)

    def load(self) -> None:
        """Read the hashes of every seen key (the ``key_hash`` column, else from the key).

        The rows are counted first (a Parquet file's footer says), then each frame's hashes
        are copied into one array and let go before the next frame is read, and the array is
        sorted in place: the peak is the hashes once and one frame's more.
        """
        counts = [frame.select(pl.len()).collect().item() for frame in self.frames]
        self.hashes = np.empty(sum(counts), np.uint64)
        end = 0
        for frame in self.frames:
            part = _hashes(frame, self.profile)
            self.hashes[end : end + len(part)] = part
            end += len(part)
        self.hashes = self.hashes[:end]
        self.hashes.sort()

    def new_rows(self, rows: pl.DataFrame) -> pl.DataFrame:
        """``rows`` whose key is not seen (rows without a key are kept: nothing is lost).

        ``rows`` hold ``normalized`` and ``key_hash``; their keys are distinct already.
        """
        hashed = rows.get_column(HASH)
        matched = contains(self.hashes, hashed) | contains(self.added_hashes, hashed)
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
        merged = np.concatenate([self.added_hashes, kept.get_column(HASH).to_numpy()])
        merged.sort()
        self.added_hashes = merged


def contains(ordered: Hashes, values: pl.Series) -> pl.Series:
    """Whether each of ``values`` is in ``ordered`` (sorted), by binary search; null: False.

    >>> ordered = np.array([2, 5, 5, 9], np.uint64)
    >>> contains(ordered, pl.Series([5, 1, 9, 10, None], dtype=pl.UInt64)).to_list()
    [True, False, True, False, False]
    """
    if not len(ordered):
        return pl.Series(values.name, np.zeros(values.len(), np.bool_))
    wanted = values.fill_null(0).to_numpy()
    at = np.searchsorted(ordered, wanted, side="left")
    found = ordered[np.minimum(at, len(ordered) - 1)] == wanted
    return pl.Series(values.name, found & (at < len(ordered))) & values.is_not_null()


def _with_hash(frame: pl.LazyFrame, profile: str | Profile) -> pl.LazyFrame:
    """``frame``'s keys with their hashes: the stored column, else the key's own hash.

    A stored key is its own normal form (every profile is idempotent), so parsing it again
    under the same profile gives the hash it had when it was written. Rows written before a
    table gained ``key_hash`` hold a null there: their hashes come from their keys too.
    """
    schema = frame.collect_schema()
    parsed = UrlExprNamespace(pl.col(KEY)).parse(profile, (HASH,)).struct.field(HASH)
    if HASH not in schema:
        return frame.select(KEY, parsed.alias(HASH))
    # A table format stores the hash's 64 bits as a signed long (no unsigned types).
    signed = schema[HASH] == pl.Int64
    stored = pl.col(HASH).reinterpret(signed=False) if signed else pl.col(HASH)
    unhashed = pl.col(HASH).is_null() & pl.col(KEY).is_not_null()
    return pl.concat(
        [
            frame.filter(pl.col(HASH).is_not_null()).select(KEY, stored),
            frame.filter(unhashed).select(KEY, parsed.alias(HASH)),
        ]
    )


def _hashes(frame: pl.LazyFrame, profile: str | Profile) -> Hashes:
    """``frame``'s key hashes, nulls left out, as NumPy holds them (no copy where it can)."""
    found = _with_hash(frame, profile).select(HASH).collect(engine="streaming").get_column(HASH)
    return found.drop_nulls().to_numpy()

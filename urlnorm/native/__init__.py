"""The native kernel (``urlnorm/_native``): the core's compiled twin, run over Arrow arrays.

The kernel takes its character tables from :mod:`urlnorm.core` (:mod:`.tables`), so that the
encode sets and classes are defined once. Rows it cannot finish alone *ask* a question that
only Python answers (:mod:`.answers`): UTS #46 for a non-ASCII host and the Public Suffix List
for ``strip_www``. A row that asks waits while Python answers (once per distinct question in a
batch) and then runs again with the answer; those rows are counted as having left the kernel.

One module a concern: :mod:`.extension` loads the kernel, :mod:`.profiles` compiles profiles
to its form, :mod:`.arrow_io` moves columns in and out, :mod:`.slicing` cuts batches for the
threads, :mod:`.operations` runs them, :mod:`.plugin` compiles them into calls that Polars
runs itself or Python runs on a column, and :mod:`.fuzz` writes the fuzz harness's header.
"""

from __future__ import annotations

from urlnorm.native import plugin
from urlnorm.native.arrow_io import Column, SliceStream, as_kernel_array, frame, large_strings
from urlnorm.native.extension import KernelMissingWarning, Status, available, status
from urlnorm.native.fuzz import fuzz_header
from urlnorm.native.operations import (
    Call,
    Op,
    campaign,
    component,
    component_op,
    filter_reason,
    host_column,
    host_column_op,
    join,
    normalize,
    normalize_op,
    normalize_record,
    parse_op,
    parse_slices,
    path_segments,
    path_segments_op,
    query,
    query_op,
    referrer,
    select_params,
    split,
    split_op,
    surt,
    unwrap_redirects,
    url_part,
    url_part_op,
    visit,
)
from urlnorm.native.profiles import NativeProfile, native_prefix, native_profile
from urlnorm.native.slicing import configured_threads, set_threads, threads, threads_per_call

__all__ = [
    "Call",
    "Column",
    "KernelMissingWarning",
    "NativeProfile",
    "Op",
    "SliceStream",
    "Status",
    "as_kernel_array",
    "available",
    "campaign",
    "component",
    "component_op",
    "configured_threads",
    "filter_reason",
    "frame",
    "fuzz_header",
    "host_column",
    "host_column_op",
    "join",
    "large_strings",
    "native_prefix",
    "native_profile",
    "normalize",
    "normalize_op",
    "normalize_record",
    "parse_op",
    "parse_slices",
    "path_segments",
    "path_segments_op",
    "plugin",
    "query",
    "query_op",
    "referrer",
    "select_params",
    "set_threads",
    "split",
    "split_op",
    "status",
    "surt",
    "threads",
    "threads_per_call",
    "unwrap_redirects",
    "url_part",
    "url_part_op",
    "visit",
]

"""The questions only Python answers, answered by the core.

UTS #46 for a non-ASCII host, the Public Suffix List for ``strip_www``: each answered once
per distinct question, and kept across batches.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from urlnorm.core import host, public_suffix
from urlnorm.core.crawl import strip_www_host
from urlnorm.core.errors import URLError
from urlnorm.native import extension
from urlnorm.native.profiles import NativeProfile


def _error_index(code: str) -> int:
    kernel = extension.loaded()
    return kernel.ERROR_NAMES.index(code)  # type: ignore[no-any-return]


# Answers are kept across batches: the kernel's own cache lasts one batch of one thread, and
# streaming and SQL engines hand over many small batches that ask the same few hosts.
ANSWERS_KEPT = 1 << 16
_answerers: dict[int, tuple[NativeProfile | None, Callable[[int, str], str | int]]] = {}


def answerer(profile: NativeProfile | None) -> Callable[[int, str], str | int]:
    """The kernel's answerer for ``profile``, made once: its answers outlive a batch.

    Its answers are kept by the Public Suffix List in use when they were given, so that one
    held since before the process changed lists (a compiled Polars call) answers
    ``strip_www`` by the list in use now.
    """
    key = id(profile)
    if key not in _answerers or _answerers[key][0] is not profile:
        _answerers[key] = (profile, _kept(_new_answerer(profile)))
    return _answerers[key][1]


def _kept(answer: Callable[[int, str], str | int]) -> Callable[[int, str], str | int]:
    @functools.lru_cache(maxsize=ANSWERS_KEPT)
    def by_list(path: Path, kind: int, question: str) -> str | int:
        return answer(kind, question)

    def kept(kind: int, question: str) -> str | int:
        return by_list(public_suffix.list_path(), kind, question)

    return kept


def _new_answerer(profile: NativeProfile | None) -> Callable[[int, str], str | int]:
    """The kernel's answerer: each distinct question a batch's rows ask, answered by the core.

    UTS #46 through the host parser, the profile's host rules for a generic-mode host,
    ``strip_www`` for a non-ASCII host; an error is returned as its code's index.
    """
    kernel = extension.loaded()
    host_rules = profile.answer_host_rules if profile is not None else _host_parser
    psl = None if profile is None else profile.profile.psl
    by_kind: dict[int, Callable[[str], str]] = {
        kernel.ASK_HOST: _host_parser,
        kernel.ASK_HOST_RULES: host_rules,
        kernel.ASK_WWW: functools.partial(strip_www_host, psl=psl),
    }

    def answer(kind: int, question: str) -> str | int:
        try:
            return by_kind[kind](question)
        except URLError as exc:
            return _error_index(exc.code)

    return answer


def _host_parser(text: str) -> str:
    return host.parse_host(text, special=True)

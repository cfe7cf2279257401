"""UTS #46 IDNA processing with the options the URL Standard uses for domain to ASCII.

https://www.unicode.org/reports/tr46/#Processing with CheckHyphens=false, CheckBidi=true,
CheckJoiners=true, UseSTD3ASCIIRules=false, Transitional_Processing=false,
VerifyDnsLength=false, IgnoreInvalidPunycode=false (URL Standard §3.3 "domain to ASCII").

The mapping table and the ContextJ/Bidi rules come from the ``idna`` package, which tracks the
Unicode releases; the processing steps (§4) are ours because ``idna.encode`` applies IDNA2008's
stricter rules (hyphens, STD3), which browsers do not.
"""

from __future__ import annotations

import unicodedata

import idna

ACE_PREFIX = "xn--"
_RTL_CLASSES = frozenset(("R", "AL", "AN"))
_JOINERS = frozenset("\u200c\u200d")


class IDNAError(ValueError):
    """A domain that fails UTS #46 processing."""


def map_domain(domain: str) -> str:
    """UTS #46 §4 step 1–2: map each code point, then normalise to NFC.

    >>> map_domain("Faß.DE")
    'faß.de'
    """
    try:
        return str(idna.uts46_remap(domain, std3_rules=False))
    except idna.IDNAError as exc:
        raise IDNAError(str(exc)) from None


def decode_punycode(label: str) -> str:
    """UTS #46 §4 step 4.1: decode an ``xn--`` label, rejecting what §4 says to reject.

    >>> decode_punycode("xn--bcher-kva")
    'bücher'
    """
    if not label.isascii():
        raise IDNAError(f"non-ASCII A-label {label!r}")
    try:
        decoded = label[len(ACE_PREFIX) :].encode("ascii").decode("punycode")
    except UnicodeError:
        raise IDNAError(f"invalid punycode {label!r}") from None
    if decoded == "" or decoded.isascii():
        raise IDNAError(f"A-label {label!r} decodes to ASCII")
    return decoded


def _all_valid(label: str) -> bool:
    # A label in NFC is made only of valid and deviation code points exactly when the
    # nontransitional mapping leaves it unchanged.
    try:
        return map_domain(label) == label
    except IDNAError:
        return False


def _valid_joiners(label: str) -> bool:
    try:
        return all(
            idna.valid_contextj(label, pos) for pos, char in enumerate(label) if char in _JOINERS
        )
    except ValueError:
        # idna looks up joining neighbours by name; a code point newer than this Python's
        # Unicode database has none, so the rule cannot be shown to hold: the label fails.
        return False


def check_label(label: str) -> None:
    """UTS #46 §4.1 validity criteria 1–7 for one label (nontransitional, CheckJoiners).

    >>> check_label("\u0301a")
    Traceback (most recent call last):
    ...
    urlnorm.core.uts46.IDNAError: label '́a' starts with a combining mark
    """
    if unicodedata.normalize("NFC", label) != label:
        raise IDNAError(f"label {label!r} is not NFC")
    if label[:4].lower() == ACE_PREFIX or "." in label:
        raise IDNAError(f"label {label!r} is not a valid U-label")
    if not _all_valid(label):
        raise IDNAError(f"label {label!r} has a disallowed code point")
    if label and unicodedata.category(label[0]).startswith("M"):
        raise IDNAError(f"label {label!r} starts with a combining mark")
    if not _valid_joiners(label):
        raise IDNAError(f"label {label!r} breaks the ContextJ rules")


def _is_bidi_domain(labels: list[str]) -> bool:
    return any(unicodedata.bidirectional(c) in _RTL_CLASSES for label in labels for c in label)


def check_bidi(labels: list[str]) -> None:
    """RFC 5893 §2 Bidi rule on every label of a Bidi domain name (UTS #46 §4.1 criterion 8)."""
    if not _is_bidi_domain(labels):
        return
    for label in filter(None, labels):
        try:
            idna.check_bidi(label, check_ltr=True)
        except idna.IDNAError as exc:
            raise IDNAError(str(exc)) from None


def to_unicode_labels(domain: str) -> list[str]:
    """UTS #46 §4 Processing: map, split, decode A-labels and validate; return U-labels.

    >>> to_unicode_labels("XN--BCHER-KVA.example")
    ['bücher', 'example']
    """
    labels = map_domain(domain).split(".")
    out = []
    for label in labels:
        if label.startswith(ACE_PREFIX):
            label = decode_punycode(label)
        check_label(label)
        out.append(label)
    check_bidi(out)
    return out


def _to_ascii_label(label: str) -> str:
    return label if label.isascii() else ACE_PREFIX + label.encode("punycode").decode("ascii")


def to_ascii(domain: str) -> str:
    """UTS #46 §4.2 ToASCII with the URL Standard's options.

    >>> to_ascii("Bücher.example")
    'xn--bcher-kva.example'
    """
    return ".".join(_to_ascii_label(label) for label in to_unicode_labels(domain))


def to_unicode(domain: str) -> str:
    """UTS #46 §4.3 ToUnicode with the URL Standard's options.

    >>> to_unicode("xn--bcher-kva.example")
    'bücher.example'
    """
    return ".".join(to_unicode_labels(domain))

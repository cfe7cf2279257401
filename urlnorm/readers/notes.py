"""What reading a file met: its malformed lines and its lines with bytes that are not UTF-8.

Kept apart from the readers, which need pyarrow and NumPy, so that a job over Parquet never
imports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from urlnorm.core import errors

if TYPE_CHECKING:
    import numpy as np

# The column a table read from a line format holds a malformed line's error in.
LINE_ERROR = "__urlnorm_line_error"


@dataclass
class Lines:
    """How many lines of one kind a read met, and the number of the first.

    Not every number: a file of millions of bad lines must not hold millions of numbers.
    """

    count: int = 0
    first: int | None = None

    def add(self, numbers: np.ndarray) -> None:
        """Count the lines numbered ``numbers``."""
        if len(numbers):
            self.count += len(numbers)
            least = int(numbers.min())
            self.first = least if self.first is None else min(self.first, least)

    def __bool__(self) -> bool:
        return self.count > 0


@dataclass
class ReadNotes:
    """What one read met: malformed lines, and lines whose other columns had bad bytes."""

    unit: str = "line"
    malformed: Lines = field(default_factory=Lines)
    undecodable: Lines = field(default_factory=Lines)
    files: dict[str, ReadNotes] = field(default_factory=dict)

    def of(self, file: str) -> ReadNotes:
        """The notes of one file of a dataset, which :meth:`messages` names."""
        return self.files.setdefault(file, ReadNotes())

    @property
    def malformed_total(self) -> int:
        """Malformed lines met in this read and in every file of it."""
        return self.malformed.count + sum(n.malformed_total for n in self.files.values())

    def messages(self) -> list[str]:
        """One sentence for each kind of line met, with the number of the first.

        >>> ReadNotes(malformed=Lines(2, 7)).messages()
        ['2 lines malformed, kept as rows with error malformed-record (the first is line 7)']
        """
        said = []
        if self.malformed:
            said.append(
                f"{self._count(self.malformed)} malformed, kept as rows with error "
                f"{errors.MALFORMED_RECORD} (the first is {self.unit} {self.malformed.first})"
            )
        if self.undecodable:
            said.append(
                f"{self._count(self.undecodable)} with bytes that are not UTF-8 outside the URL, "
                f"read as U+FFFD (the first is {self.unit} {self.undecodable.first})"
            )
        return said + [f"{f}: {m}" for f, notes in self.files.items() for m in notes.messages()]

    def restart(self) -> None:
        """Forget what an earlier run of the same read met."""
        self.malformed, self.undecodable = Lines(), Lines()

    def _count(self, lines: Lines) -> str:
        return f"{lines.count:,} {self.unit}{'s' if lines.count != 1 else ''}"

"""The column functions as type checkers and editors see them: stubs made from the table.

Each front-end makes its column functions from :data:`urlnorm.functions.FUNCTIONS` when it is
imported (``urlnorm.arrow.normalize``, the Polars ``url`` namespaces, ``urlnorm.spark.url``,
``urlnorm.ray.url``, the functional forms of :mod:`urlnorm.polars`), so no type checker can
read them from the source. The stubs beside this file (``arrow.pyi``, ``polars.pyi``,
``spark.pyi``, ``ray.pyi``) declare them, with each parameter's type and default and each
function's documentation; the front-ends import them for type checkers only (under
``TYPE_CHECKING``). They are made by :func:`stub` and checked in; ``python -m urlnorm.typed``
writes them again after the table changes, and a test fails while they differ.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from urlnorm.functions import FUNCTIONS, REQUIRED, ColumnFunction, Parameter

HERE = Path(__file__).parent
HEADER = '"""{what} Made by ``python -m urlnorm.typed``; not edited by hand."""\n'
_IMPORTS = """
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from urlnorm.core.profiles import Profile
from urlnorm.core.providers import Provider
"""


@dataclass(frozen=True)
class Face:
    """How a front-end spells a column function: what comes before its parameters and after.

    ``first`` are the parameters before the table's (the URL column, ``self`` for a method),
    ``other`` the type of a second URL column, ``last`` any keyword parameters after the
    table's, and ``returns`` the result's type.
    """

    first: str
    other: str
    returns: str
    last: str = ""


def parameter(p: Parameter, other: str) -> str:
    """One table parameter as a stub declares it (a simple default shown, any other ``...``).

    >>> from urlnorm.functions import function
    >>> [parameter(p, "str") for p in function("normalize").parameters]
    ["profile: str | Profile = 'rfc3986'", 'strict: bool = False', "invalid_utf8: str = 'error'"]
    """
    annotation = p.annotation(other)
    if p.default is REQUIRED:
        return f"{p.name}: {annotation}"
    simple = p.default is None or isinstance(p.default, str | int | float)
    return f"{p.name}: {annotation} = {p.default!r}" if simple else f"{p.name}: {annotation} = ..."


def parameters(function: ColumnFunction, face: Face) -> str:
    """The whole parameter list of ``function`` as ``face`` spells it.

    >>> from urlnorm.functions import function
    >>> parameters(function("query_param"), Face("self", "str", "Any"))
    'self, name: str'
    """
    listed = [face.first] if face.first else []
    keyword = False
    for p in function.parameters:
        if not p.positional and not keyword:
            listed.append("*")
            keyword = True
        listed.append(parameter(p, face.other))
    if face.last:
        listed += ([] if keyword else ["*"]) + [face.last]
    return ", ".join(listed)


def definition(function: ColumnFunction, face: Face, indent: str = "") -> str:
    """A stub's ``def`` of ``function``, with its documentation."""
    doc = textwrap.indent(inspect.cleandoc(function.doc), indent + "    ").strip()
    head = f"{indent}def {function.name}({parameters(function, face)}) -> {face.returns}:"
    raw = "r" if "\\" in doc else ""  # a docstring's backslashes as the table wrote them
    return f'{head}\n{indent}    {raw}"""{doc}\n{indent}    """\n'


def functions_of(face: Face, *, skip: tuple[str, ...] = ()) -> str:
    """Every column function (but ``skip``) as module-level functions."""
    return "\n\n".join(definition(f, face) for f in FUNCTIONS if f.name not in skip)


def methods_of(name: str, what: str, face: Face) -> str:
    """A class ``name`` with every column function as a method."""
    methods = "\n".join(definition(f, face, "    ") for f in FUNCTIONS)
    return f'class {name}:\n    """{what}"""\n\n{methods}'


ARROW = Face("array: pa.Array | pa.ChunkedArray, /", "str | pa.Array | pa.ChunkedArray", "pa.Array")
EXPR = Face("self", "str | pl.Expr", "pl.Expr")
SERIES = Face("self", "str | pl.Series", "pl.Series")
FUNCTIONAL = Face("expr: str | pl.Expr, /", "str | pl.Expr", "pl.Expr")
SPARK = Face("self, column: Column | str, /", "str | Column", "Column")
RAY = Face("self, dataset: Any, source: str, /", "str | column", "Any", "output: str | None = None")


def _stub(what: str, imported: str, *parts: str) -> str:
    """A stub's text: what it declares, the imports, then its classes and functions."""
    body = "\n\n".join(parts)
    return f"{HEADER.format(what=what)}{_IMPORTS}\n{imported}\n\n\n{body}"


def _arrow() -> str:
    from urlnorm.arrow import HAND_WRITTEN

    what = "The column functions of urlnorm.arrow."
    return _stub(what, "import pyarrow as pa", functions_of(ARROW, skip=HAND_WRITTEN))


def _polars() -> str:
    from urlnorm.polars import HAND_WRITTEN

    return _stub(
        "The url namespaces' methods and urlnorm.polars' functional forms.",
        "import polars as pl",
        methods_of("ExprFunctions", "The ``url`` namespace of a Polars expression.", EXPR),
        methods_of("SeriesFunctions", "The ``url`` namespace of a Polars Series.", SERIES),
        functions_of(FUNCTIONAL, skip=HAND_WRITTEN),
    )


def _spark() -> str:
    return _stub(
        "urlnorm.spark.url: every column function on a Spark Column.",
        "from pyspark.sql import Column",
        methods_of("SparkFunctions", "``urlnorm.spark.url``.", SPARK),
    )


def _ray() -> str:
    return _stub(
        "urlnorm.ray.url: every column function adding its column to a Ray dataset.",
        "from urlnorm.ray import column",
        methods_of("RayFunctions", "``urlnorm.ray.url``.", RAY),
    )


STUBS: dict[str, Callable[[], str]] = {
    "arrow": _arrow,
    "polars": _polars,
    "spark": _spark,
    "ray": _ray,
}


def stub(name: str) -> str:
    """The stub of front-end ``name`` as the table makes it now."""
    return STUBS[name]()


def path(name: str) -> Path:
    """Where the stub of front-end ``name`` is kept."""
    return HERE / f"{name}.pyi"


def write() -> list[Path]:
    """Write every stub; the files written."""
    for name in STUBS:
        path(name).write_text(stub(name))
    return [path(name) for name in STUBS]

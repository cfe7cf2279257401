"""urlnorm on Ray Data, batch by batch as Arrow tables (``pip install urlnorm[ray]``).

``normalize`` adds the normalised URL, its error (and record) from one kernel pass; ``url``
holds every column function of :mod:`urlnorm.functions`, each adding its column to a
dataset: ``url.registered_domain(dataset, "u")``. Ray Data does not take ``string_view``, so
text columns are cast to ``large_string`` (the one copy). Importing ``urlnorm`` never imports
this module.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa

from urlnorm import arrow, functions
from urlnorm.engine import RECORD_FIELDS

if TYPE_CHECKING:
    from urlnorm.typed.ray import RayFunctions


@dataclass(frozen=True)
class column:  # named as the call reads: other=column("base")
    """A second URL argument that is a column of the batch, not a literal string."""

    name: str


def _for_ray(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    return values.cast(pa.large_string()) if pa.types.is_string_view(values.type) else values


def normalize_table(
    table: pa.Table, column: str, profile: str = "rfc3986", *, split: bool = False
) -> pa.Table:
    """``table`` plus ``normalized`` and ``error`` (and the normalised URL's record) columns.

    One pass of the kernel gives them all.
    """
    fields = ("normalized", "error", *(RECORD_FIELDS if split else ()))
    parsed = arrow.parse(table.column(column), profile, fields)
    for name in fields:
        table = table.append_column(name, _for_ray(parsed.column(name)))
    return table


def normalize(dataset: Any, column: str, profile: str = "rfc3986", *, split: bool = False) -> Any:
    """A ``ray.data.Dataset`` with the columns of :func:`normalize_table`, via ``map_batches``."""
    return dataset.map_batches(
        normalize_table,
        batch_format="pyarrow",
        fn_kwargs={"column": column, "profile": profile, "split": split},
    )


def function_table(
    table: pa.Table, name: str, source: str, output: str, params: dict[str, Any]
) -> pa.Table:
    """``table`` plus the column function ``name`` of its column ``source``, as ``output``.

    A second URL argument given as :class:`column` is read from the table.
    """
    given = {k: table.column(v.name) if isinstance(v, column) else v for k, v in params.items()}
    values = getattr(arrow, name)(table.column(source), **given)
    return table.append_column(output, _for_ray(values))


def _dataset_function(function: functions.ColumnFunction) -> Callable[..., Any]:
    sig = functions.signature(function, "str | column", method=True)

    def call(
        dataset: Any, source: str, *args: Any, output: str | None = None, **kwargs: Any
    ) -> Any:
        params = functions.bound(sig, args, kwargs)
        return dataset.map_batches(
            function_table,
            batch_format="pyarrow",
            fn_kwargs={
                "name": function.name,
                "source": source,
                "output": output or function.name,
                "params": params,
            },
        )

    call.__name__ = call.__qualname__ = function.name
    call.__doc__ = (
        f"A dataset plus ``{function.name}`` of its column ``source``.\n\n" + function.doc
    )
    public = functions.signature(function, "str | column")
    first = [
        inspect.Parameter("dataset", inspect.Parameter.POSITIONAL_ONLY),
        inspect.Parameter("source", inspect.Parameter.POSITIONAL_ONLY, annotation="str"),
    ]
    output = inspect.Parameter("output", inspect.Parameter.KEYWORD_ONLY, default=None)
    call.__signature__ = public.replace(  # type: ignore[attr-defined]
        parameters=[*first, *public.parameters.values(), output]
    )
    return call


# Typed for checkers by the table's stub (urlnorm/typed/ray.pyi).
url = cast("RayFunctions", functions.Namespace(_dataset_function))

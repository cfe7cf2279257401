"""The reference pages, made from urlnorm's own registries when the site is built.

Nothing here is written by hand twice: the column functions come from their table
(:data:`urlnorm.functions.FUNCTIONS`), the command line from its parser, the profiles and
rules from their registries, and the error codes from theirs. ``docs/hooks.py`` hands each
page to MkDocs; the tests build the site and run every example on these pages.
"""

from __future__ import annotations

import argparse
import inspect
import re
from collections.abc import Callable

from urlnorm.functions import (
    FUNCTIONS,
    RETURN_NAMES,
    ColumnFunction,
    Parameter,
    markdown_table,
    shown,
    sql_call,
)

PAGES: dict[str, Callable[[], str]] = {}


def page(path: str) -> Callable[[Callable[[], str]], Callable[[], str]]:
    """Register a page maker under its path below ``docs/``."""

    def keep(make: Callable[[], str]) -> Callable[[], str]:
        PAGES[path] = make
        return make

    return keep


def _default(p: Parameter) -> str:
    """A parameter's default as the reference's table shows it."""
    return "required" if p.required else f"`{shown(p.default)}`"


def _spellings(f: ColumnFunction) -> list[str]:
    """How each front-end calls ``f``, with the URL column first."""
    return [
        f'| Polars expression | `pl.col("u").url.{f.name}(…)` |',
        f'| Polars, typed | `urlnorm.polars.{f.name}(pl.col("u"), …)` |',
        f"| Polars Series | `series.url.{f.name}(…)` |",
        f"| Arrow | `urlnorm.arrow.{f.name}(array, …)` |",
        f"| SQL (DuckDB, Spark) | {sql_call(f)} |",
        f'| Spark | `urlnorm.spark.url.{f.name}("u", …)` |',
        f'| Ray | `urlnorm.ray.url.{f.name}(dataset, "u", …)` |',
    ]


def fenced(text: str) -> str:
    r"""``text`` with each run of doctest lines in a Python code block (so it renders as code).

    >>> fenced("Prose.\n\n>>> 1 + 1\n2").splitlines()
    ['Prose.', '', '```python', '>>> 1 + 1', '2', '', '```']
    """
    return re.sub(r"(?ms)^(>>> .*?)(?=\n\n|\Z)", r"```python\n\1\n\n```", text)


def _function_section(f: ColumnFunction) -> str:
    rows = [
        f"| `{p.name}` | `{p.annotation('a column')}` | {_default(p)} | "
        f"{'by position or name' if p.positional else 'by name'} | {'yes' if p.in_sql else 'no'} |"
        for p in f.parameters
    ]
    table = (
        "| parameter | type | default | given | in SQL |\n|---|---|---|---|---|\n" + "\n".join(rows)
        if rows
        else "It takes no parameter but the URL column."
    )
    doc = inspect.cleandoc(f.doc).split("\n", 1)
    example = fenced(doc[1].strip() if len(doc) > 1 else "")
    return "\n\n".join(
        [
            f"## `{f.name}`",
            doc[0],
            f"Returns: {RETURN_NAMES[f.returns]}.",
            table,
            "| front-end | call |\n|---|---|\n" + "\n".join(_spellings(f)),
            example,
        ]
    )


@page("reference/functions.md")
def functions_page() -> str:
    """Every column function: its parameters, defaults, return type, spellings, examples."""
    intro = (
        "# Column functions\n\nEvery column function, as the table in `urlnorm/functions.py` "
        "declares it. Each is in every front-end under the same name, with the same "
        "parameters and defaults; its examples run in the test suite.\n\n"
    )
    return intro + markdown_table() + "\n" + "\n\n".join(_function_section(f) for f in FUNCTIONS)


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(actions[0].choices) if actions else {}


@page("reference/command-line.md")
def command_line_page() -> str:
    """The command line, each command's help as its own parser prints it."""
    from urlnorm.cli import parser

    main = parser()
    parts = [
        "# Command line\n\nEach command's help, as `urlnorm COMMAND --help` prints it.",
        f"```text\n{main.format_help().rstrip()}\n```",
    ]
    for name, command in _commands(main).items():
        parts += [f"## `urlnorm {name}`", f"```text\n{command.format_help().rstrip()}\n```"]
    return "\n\n".join(parts) + "\n"


@page("reference/profiles.md")
def profiles_page() -> str:
    """The registered profiles (their parse mode and rules) and every rule with its citation."""
    import urlnorm  # noqa: F401 (registers the crawl and ia profiles)
    from urlnorm.core.profiles import PROFILES
    from urlnorm.core.rules import RULES

    profiles = "\n".join(
        f"| `{p.name}` | {p.mode} | {', '.join(f'`{r.name}`' for r in p.rules) or 'none'} |"
        for p in PROFILES.values()
    )
    rules = "\n".join(
        f"| `{r.name}` | {r.citation} | {'yes' if r.lossy else 'no'} |" for r in RULES.values()
    )
    return (
        "# Profiles and rules\n\nThe profiles urlnorm registers, in the order they apply their "
        "rules, and every rule with the section of the standard it implements.\n\n"
        "| profile | parse mode | rules |\n|---|---|---|\n"
        f"{profiles}\n\n## Rules\n\n| rule | standard | lossy |\n|---|---|---|\n{rules}\n"
    )


@page("reference/errors.md")
def errors_page() -> str:
    """The error codes an ``error`` column holds, and what each means."""
    from urlnorm.core.errors import CODES

    rows = "\n".join(f"| `{code}` | {meaning} |" for code, meaning in CODES.items())
    return (
        "# Error codes\n\nWhat an `error` column (and `URLError.code`) holds for a row that "
        "fails; the URL Standard's validation-error names where one fits.\n\n"
        f"| code | meaning |\n|---|---|\n{rows}\n"
    )


# The hand-written Python API a user calls besides the column functions.
API = {
    "One URL at a time": ("urlnorm", ("normalize", "split", "join", "explain")),
    "Frames": (
        "urlnorm.polars",
        ("dedup", "dedup_keyed", "dedup_summary", "sample_per_host", "channel_group_of"),
    ),
    "A job over files": ("urlnorm.jobs", ("normalize",)),
    "Arrow": ("urlnorm.arrow", ("parse", "map_batches", "map_reader")),
}


@page("reference/python.md")
def python_page() -> str:
    """The Python API besides the column functions: each signature and its documentation."""
    import importlib

    parts = [
        "# Python API\n\nThe functions a user calls besides the column functions (which are "
        "on [their own page](functions.md)), with their signatures and documentation as "
        "`help()` shows them."
    ]
    for title, (module_name, names) in API.items():
        module = importlib.import_module(module_name)
        parts.append(f"## {title}")
        for name in names:
            function = getattr(module, name)
            parts.append(f"### `{module_name}.{name}`")
            parts.append(f"```python\n{name}{inspect.signature(function)}\n```")
            parts.append(fenced(inspect.cleandoc(function.__doc__ or "")))
    return "\n\n".join(parts) + "\n"

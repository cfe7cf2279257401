"""The layers the architecture page draws, held against the code's own imports.

``docs/architecture.md`` gives each module of ``urlnorm`` a layer; every import a module makes
(at its top or inside a function) must go to its own layer or one beneath. Imports made for
type checkers alone (under ``if TYPE_CHECKING:``) are not imports at run time, and are left out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "urlnorm"


def layers() -> dict[str, int]:
    """Each module's layer, as the page's table gives it."""
    page = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    table = page.split("<!-- layers:begin -->")[1].split("<!-- layers:end -->")[0]
    found = {}
    for line in table.splitlines()[3:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        for name in re.findall(r"`(\w+)`", cells[1]):
            found[name] = int(cells[0])
    return found


def room(module: str) -> str:
    """The room of a dotted module name: ``urlnorm.lake.storage`` is ``lake``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "urlnorm"


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _module_of(base: str, name: str) -> str:
    """What ``from base import name`` imports: the module ``base.name`` if there is one."""
    inside = PACKAGE.parent.joinpath(*base.split("."), name)
    return f"{base}.{name}" if inside.is_dir() or inside.with_suffix(".py").exists() else base


def imports(path: Path) -> list[tuple[int, str]]:
    """The urlnorm modules that the file at ``path`` imports at run time, with their lines."""
    module = ".".join(("urlnorm", *path.relative_to(PACKAGE).with_suffix("").parts))
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if _type_checking(node):
            return
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*module.split(".")[: -node.level], *filter(None, [base])])
            names = [_module_of(base, a.name) for a in node.names]
            found.extend((node.lineno, n) for n in names if n.startswith("urlnorm"))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, a.name) for a in node.names if a.name.startswith("urlnorm"))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text("utf-8")))
    return found


def test_every_module_has_a_layer() -> None:
    given = layers()
    rooms = {
        "urlnorm" if p.name == "__init__.py" else p.name.removesuffix(".py")
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists())
        and (not p.name.startswith("_") or p.name == "__init__.py")
    }
    assert sorted(rooms - set(given)) == []


def test_no_import_runs_back_up() -> None:
    given = layers()
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_native" in path.parts:
            continue
        source = ".".join(("urlnorm", *path.relative_to(PACKAGE).with_suffix("").parts))
        own = given[room(source.removesuffix(".__init__"))]
        for line, target in imports(path):
            if given[room(target)] > own:
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert upward == []


def test_an_upward_import_is_found(tmp_path: Path) -> None:
    # The check itself: a core module importing the command line is an import that runs up.
    fake = PACKAGE / "core" / "_layer_probe.py"
    fake.write_text("def f() -> None:\n    from urlnorm import cli\n")
    try:
        found = imports(fake)
    finally:
        fake.unlink()
    assert found == [(2, "urlnorm.cli")]
    assert layers()[room(found[0][1])] > layers()["core"]

"""The code's shape, as docs/DEVELOPING.md describes it: no import circle in app/ (counting
the packages that hold each module imported, and imports for type checking), no module over
500 lines but the hand solver, route modules that import shared modules only, never each
other, and routes that leave every service error to web/errors.py."""

import ast
from pathlib import Path

from tests.app_errors import service_error_classes

APP = Path(__file__).resolve().parent.parent / "app"
ROUTE_MODULES = {
    "app.web.api",
    "app.web.tables_api",
    "app.web.pages",
    "app.web.table_pages",
    "app.web.piles",
    "app.web.stream",
}
LONG_ALLOWED = {"app.rules.solver"}


def module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_package(name: str) -> bool:
    return (APP.parent / name.replace(".", "/") / "__init__.py").exists()


def runtime_imports(path: Path) -> set[str]:
    """The app modules path imports at its top level (those for type checking too; imports
    inside functions are deliberately late), with every package on the way (importing a.b.c
    runs a/__init__ and a/b/__init__)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                found.add(base)
                for alias in node.names:
                    if is_package(base) and (
                        (APP.parent / base.replace(".", "/") / f"{alias.name}.py").exists()
                        or is_package(f"{base}.{alias.name}")
                    ):
                        found.add(f"{base}.{alias.name}")
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt) and not isinstance(
                    node, ast.FunctionDef | ast.AsyncFunctionDef
                ):
                    visit([child])

    visit(tree.body)
    with_packages: set[str] = set()
    for imported in found:
        if not imported.startswith("app"):
            continue
        parts = imported.split(".")
        with_packages.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    with_packages.discard(name)
    with_packages.discard("app")
    return with_packages


def app_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(APP.rglob("*.py"))}


def test_no_import_circle_in_app():
    modules = app_modules()
    graph = {name: runtime_imports(path) & set(modules) for name, path in modules.items()}
    # A package's own __init__ importing its modules is how a package is made, not a circle.
    for name in graph:
        graph[name] = {other for other in graph[name] if not name.startswith(other + ".")}
    state: dict[str, str] = {}
    circles: list[list[str]] = []

    def walk(name: str, trail: list[str]) -> None:
        state[name] = "open"
        for other in sorted(graph[name]):
            if state.get(other) == "open":
                circles.append([*trail[trail.index(other) :], other])
            elif other not in state:
                walk(other, [*trail, other])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            walk(name, [name])
    assert circles == []


def test_no_module_over_500_lines_but_the_hand_solver():
    long = {
        name: len(path.read_text().splitlines())
        for name, path in app_modules().items()
        if len(path.read_text().splitlines()) > 500
    }
    assert set(long) <= LONG_ALLOWED, long


def test_route_modules_import_shared_modules_only():
    modules = app_modules()
    for name in ROUTE_MODULES:
        imported = runtime_imports(modules[name])
        assert not imported & (ROUTE_MODULES - {name}), name
        assert "app.main" not in imported, name


def test_no_private_name_crosses_a_module_boundary():
    for name, path in app_modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or node.level):
                # gettext's _ (app/i18n.py) is the one name spelt so by convention.
                private = [a.name for a in node.names if a.name.startswith("_") and a.name != "_"]
                assert not private, f"{name} imports {private}"


MUTATING = {"append", "add", "insert", "extend", "setdefault", "update", "__setitem__"}
PROCESS_WIDE = {("app.lock", "_held")}
"""Module-level state kept on purpose: the file locks this process holds (the operating
system's lock is per process, so its record is too)."""


def module_registries(path: Path) -> set[str]:
    """Names a module binds at its top level to a list, dict or set that its functions add
    to: listeners and the like registered in module state, out of the factory's sight."""
    tree = ast.parse(path.read_text())
    containers = set()
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign) and node.value is not None
            else []
        )
        value = getattr(node, "value", None)
        mutable = isinstance(value, ast.List | ast.Dict | ast.Set) or (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in {"list", "dict", "set", "OrderedDict", "defaultdict", "deque"}
        )
        if mutable:
            containers |= {target.id for target in targets if isinstance(target, ast.Name)}
    added_to = set()
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in MUTATING
                and isinstance(node.func.value, ast.Name)
            ):
                added_to.add(node.func.value.id)
            if isinstance(node, ast.Assign | ast.AugAssign):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                        added_to.add(target.value.id)
    return containers & added_to


def test_nothing_is_registered_in_module_state():
    # The factory builds what the services need and passes it in (the games' listeners
    # travel with the sessions it opens): no module keeps a registry its functions fill,
    # and none rebinds a module-level name from inside a function.
    registries = {
        (name, registry)
        for name, path in app_modules().items()
        for registry in module_registries(path)
    } - PROCESS_WIDE
    assert registries == set()
    rebinding = {
        name
        for name, path in app_modules().items()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Global)
    }
    assert rebinding == set()


def test_the_readme_stays_short_enough_to_read():
    # The README is for the people who run Crownkeeper; the rest lives in docs/.
    readme = APP.parent / "README.md"
    assert len(readme.read_text().splitlines()) <= 250


def route_modules() -> dict[str, Path]:
    """The modules of app that make routes: those holding an APIRouter at their top level."""
    found = {}
    for name, path in app_modules().items():
        for node in ast.parse(path.read_text()).body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "APIRouter":
                found[name] = path
    return found


def names_caught(handler: ast.ExceptHandler) -> set[str]:
    """The class names an except clause names (a bare name, a module's attribute, a tuple)."""
    caught = handler.type
    parts = caught.elts if isinstance(caught, ast.Tuple) else [caught] if caught else []
    return {part.id if isinstance(part, ast.Name) else getattr(part, "attr", "") for part in parts}


def test_no_route_catches_a_service_error():
    # Every service error is answered once, by web/errors.py (its STATUS): a route that
    # caught one would answer it a second way. A page keeps what was typed with show_again.
    routes = route_modules()
    assert set(routes) >= ROUTE_MODULES | {"app.web.installable"}
    service_errors = {error_class.__name__ for error_class in service_error_classes()}
    assert {"GameError", "TableNotFound", "PeriodError", "ImportRefused"} <= service_errors
    caught = {
        f"{name}:{handler.lineno}": names_caught(handler) & service_errors
        for name, path in routes.items()
        for handler in ast.walk(ast.parse(path.read_text()))
        if isinstance(handler, ast.ExceptHandler)
    }
    assert {where: names for where, names in caught.items() if names} == {}

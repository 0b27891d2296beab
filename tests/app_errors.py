"""The exception classes app defines, found by importing every one of its modules: the
service errors (each answered once, by web/errors.py) and the few that never meet a
request. A class defined anywhere in app is one or the other; the tests that use this
(test_errors_mapped_once.py, test_layout.py) fail until a new one is sorted."""

import importlib
import inspect
import pkgutil

import app

NEVER_MEET_A_REQUEST = {
    "app.backup.NotCrownkeeper": "`restore` refuses a file that is no Crownkeeper database",
    "app.config.SettingsError": "a setting that cannot be read stops the start",
    "app.db.MissingDriver": "PostgreSQL named without its driver installed stops the start",
    "app.games.changes.Unwired": "a change in a session the app did not open: a fault in code",
    "app.guards.BodyTooLarge": "the web layer's own HTTPException (413), answered as all are",
    "app.lock.DatabaseInUse": "a second server on one SQLite file stops the start",
    "app.migrate.DatabaseTooNew": "a database newer than the code stops the start",
    "app.serve.NotUpToDate": "workers that find the database not migrated stop the start",
    "app.serve.OneProcessOnly": "WORKERS above 1 on SQLite stops the start",
}


def qualified(error_class: type[BaseException]) -> str:
    return f"{error_class.__module__}.{error_class.__qualname__}"


def app_exception_classes() -> set[type[BaseException]]:
    """Every exception class defined at the top level of a module of app."""
    found = set()
    for module_info in pkgutil.walk_packages(app.__path__, "app."):
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == module.__name__
            ):
                found.add(value)
    return found


def service_error_classes() -> set[type[BaseException]]:
    """The errors the services raise into a request: all of app's but the few above."""
    return {c for c in app_exception_classes() if qualified(c) not in NEVER_MEET_A_REQUEST}

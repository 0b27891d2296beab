"""Bring the database to the newest schema on start, and refuse one newer than this code."""

from collections.abc import Callable

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from .config import MIGRATIONS_DIR
from .db import migrating


class DatabaseTooNew(RuntimeError):
    """The database was upgraded by a newer Crownkeeper than this one."""


def alembic_config() -> Config:
    """Alembic's configuration for this project's migrations folder, in the source tree or
    installed (alembic.ini, which an installed package has not, is for the `alembic` command)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def upgrade_to_head(engine: Engine, *, revision: str = "head") -> None:
    """Upgrade the database behind engine, after checking it is not from a newer version."""
    config = alembic_config()
    scripts = ScriptDirectory.from_config(config)
    known = {script.revision for script in scripts.walk_revisions()}
    with engine.connect() as connection:
        current = MigrationContext.configure(connection).get_current_heads()
    unknown = [rev for rev in current if rev not in known]
    if unknown:
        raise DatabaseTooNew(
            f"The database is at revision {', '.join(unknown)}, which this version of "
            "Crownkeeper does not know: it was written by a newer version. Run that version, "
            "or restore a backup."
        )
    if revision == "head" and set(current) == set(scripts.get_heads()):
        return  # already the newest schema: a start costs no migration
    _migrate(engine, lambda config: command.upgrade(config, revision))


def downgrade_to(engine: Engine, revision: str) -> None:
    """Take the database back to revision ("base": no tables), for undoing an upgrade."""
    _migrate(engine, lambda config: command.downgrade(config, revision))


def _migrate(engine: Engine, run: Callable[[Config], None]) -> None:
    config = alembic_config()
    with engine.connect() as connection, migrating(connection):
        config.attributes["connection"] = connection
        run(config)

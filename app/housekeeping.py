"""A running server's chores: games deleted more than RESTORE_DAYS ago are removed for
good, at start and then once a day."""

import asyncio
import logging

from sqlalchemy import Engine
from sqlmodel import Session

from .games import purge_deleted

log = logging.getLogger("crownkeeper")
DAY_SECONDS = 24 * 3600


def purge_once(engine: Engine) -> int:
    """Remove the games whose time to be restored has run out; how many went."""
    with Session(engine) as session:
        return purge_deleted(session)


async def purge(engine: Engine) -> None:
    """Purge once, off the event loop; a failure is logged (the next purge tries again)."""
    try:
        purged = await asyncio.to_thread(purge_once, engine)
    except Exception:
        log.exception("Removing long-deleted games failed; trying again later")
    else:
        if purged:
            log.info("Removed %d games deleted more than 30 days ago", purged)


async def purge_daily(engine: Engine, *, every: float = DAY_SECONDS) -> None:
    """Purge every `every` seconds, until cancelled (the start's purge comes before)."""
    while True:
        await asyncio.sleep(every)
        await purge(engine)

"""A running server's chores: games deleted more than RESTORE_DAYS ago are removed for
good, at start and then once a day."""

import asyncio
import logging
from collections.abc import Callable

from sqlmodel import Session

from .games import purge_deleted

Sessions = Callable[[], Session]

log = logging.getLogger("crownkeeper")
DAY_SECONDS = 24 * 3600


def purge_once(sessions: Sessions) -> int:
    """Remove the games whose time to be restored has run out; how many went (in a session
    from the app's sessions, so the tables forget them too)."""
    with sessions() as session:
        return purge_deleted(session)


async def purge(sessions: Sessions) -> None:
    """Purge once, off the event loop; a failure is logged (the next purge tries again)."""
    try:
        purged = await asyncio.to_thread(purge_once, sessions)
    except Exception:
        log.exception("Removing long-deleted games failed; trying again later")
    else:
        if purged:
            log.info("Removed %d games deleted more than 30 days ago", purged)


async def purge_daily(sessions: Sessions, *, every: float = DAY_SECONDS) -> None:
    """Purge every `every` seconds, until cancelled (the start's purge comes before)."""
    while True:
        await asyncio.sleep(every)
        await purge(sessions)

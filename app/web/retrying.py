"""Requests that lose a race in the database are tried again, whole, inside the server: a
deadlock, a serialization failure, or a unique or foreign-key violation another
transaction's commit caused (db.is_retryable). After TRIES tries the error goes on to
errors.py, which answers 503 with Retry-After, in words."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from sqlalchemy.exc import DBAPIError
from starlette.concurrency import run_in_threadpool

from ..db import end_sessions, is_retryable
from .errors import forget_form

log = logging.getLogger("crownkeeper")
TRIES = 5
# Each wait before the next try is up to this many seconds times the tries so far: random,
# so two requests that deadlocked do not meet again at the same moment.
WAIT_SECONDS = 0.02


class RetryingRoute(APIRoute):
    """A route whose request is run again from the start when it lost a race. The body is
    read once (the request keeps it); each try gets fresh dependencies, so a new session."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def tried_again(request: Request) -> Response:
            tries = 1
            while True:
                try:
                    return await handler(request)
                except DBAPIError as error:
                    if not is_retryable(error):
                        raise
                    if tries == TRIES:
                        log.warning("%s lost %d races in a row: busy", request.url.path, tries)
                        raise
                await run_in_threadpool(end_sessions, request)
                forget_form(request)
                await asyncio.sleep(random.uniform(0, WAIT_SECONDS * tries))
                tries += 1

        return tried_again

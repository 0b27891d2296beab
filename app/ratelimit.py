"""How many games and tables one client address may create: CREATE_RATE_LIMIT, counted with the
`limits` library (moving windows in memory: one process holds every count)."""

import math
import time

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.requests import Request


class RateLimited(Exception):
    """Too many creations from one address; retry_after is in whole seconds."""

    def __init__(self, retry_after: int, what: str = "games") -> None:
        self.retry_after = retry_after
        super().__init__(
            f"Too many new {what} from this address for now. "
            f"Try again in {_spoken(retry_after)}; {what} already started keep working."
        )


class CreateLimiter:
    """The per-address limits on creating games and tables (one count for both)."""

    def __init__(self, rule: str) -> None:
        self.items: list[RateLimitItem] = (
            [] if rule.strip().lower() in ("", "off") else parse_many(rule)
        )
        self.limiter = MovingWindowRateLimiter(MemoryStorage())

    def check(self, request: Request, what: str = "games") -> None:
        """Count one creation (of games or tables: what, for the message) for the request's
        client, or RateLimited when it is over."""
        if not self.items:
            return
        # The client address is the forwarded one when a trusted proxy sent the request
        # (ProxyHeadersMiddleware rewrote it); otherwise the connection's own.
        address = request.client.host if request.client else "unknown"
        for item in self.items:
            if not self.limiter.test(item, "create", address):
                reset_at = self.limiter.get_window_stats(item, "create", address).reset_time
                raise RateLimited(max(1, math.ceil(reset_at - time.time())), what)
        for item in self.items:
            self.limiter.hit(item, "create", address)


def _spoken(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} seconds"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} minutes"
    return f"{round(seconds / 3600)} hours"

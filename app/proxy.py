"""Behind a reverse proxy: take the scheme and host the phone really used from X-Forwarded-*
headers, but only from proxies listed in FORWARDED_ALLOW_IPS, so shared links and QR codes
point where phones can reach."""

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware


class ForwardedHostMiddleware:
    """Use X-Forwarded-Host as the Host header when a trusted proxy sent it."""

    def __init__(self, app: ASGIApp, trusted: str) -> None:
        self.app = app
        self.trusted = {entry.strip() for entry in trusted.split(",") if entry.strip()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self._from_trusted(scope):
            headers = dict(scope["headers"])
            forwarded = headers.get(b"x-forwarded-host", b"").split(b",")[0].strip()
            if forwarded:
                scope = dict(scope)
                scope["headers"] = [
                    (name, value) for name, value in scope["headers"] if name != b"host"
                ] + [(b"host", forwarded)]
        await self.app(scope, receive, send)

    def _from_trusted(self, scope: Scope) -> bool:
        client = scope.get("client")
        return "*" in self.trusted or (client is not None and client[0] in self.trusted)


__all__ = ["ForwardedHostMiddleware", "ProxyHeadersMiddleware"]

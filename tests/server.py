"""A real uvicorn server on 127.0.0.1, on a port it holds from the start, for a test."""

import socket
import threading
import time

import uvicorn

from app.main import create_app
from tests.conftest import test_settings


def listening_socket(port: int = 0, *, wait: float = 10.0) -> socket.socket:
    """A socket listening on 127.0.0.1: on a port the system picks (0), or on `port` again
    (after a restart), retried while the old server lets go of it."""
    deadline = time.monotonic() + wait
    while True:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
            continue
        sock.listen(128)
        return sock


class LiveServer:
    """uvicorn in a thread, started and stopped by the test, with exactly the settings the
    test gives it. The socket is bound before the server starts, so no other process can
    take the port between picking it and listening on it."""

    def __init__(self, database_url, port=0, **settings):
        self.settings = test_settings(database_url, **settings)
        self.socket = listening_socket(port)
        self.port = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = None
        self.thread = None

    def start(self):
        self.app = create_app(self.settings)
        config = uvicorn.Config(self.app, log_level="warning", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                self.stop()
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self):
        if self.server is not None:
            self.server.should_exit = True
            self.thread.join(timeout=10)
        self.socket.close()

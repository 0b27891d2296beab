"""Crownkeeper installed into a fresh virtualenv and started as its own process, for the tests
that install it as a user or the image would (tests/serving/test_package.py and
test_container.py); and the build backend they install through, as a module."""

import importlib.util
import json
import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_ENV = ("DATABASE_URL", "HOST", "PORT", "ROOT_PATH", "FORWARDED_ALLOW_IPS", "BACKUP_DIR")
START_TIMEOUT = 30.0


def build_backend() -> Any:
    """backend/precompress.py, the build backend, loaded as pip would (not a package)."""
    path = ROOT / "backend" / "precompress.py"
    spec = importlib.util.spec_from_file_location("precompress", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def clean_environment() -> dict[str, str]:
    """This environment without the app's settings and without this test run's Python."""
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_ENV}
    for name in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"):
        env.pop(name, None)
    return env


def run(command: list[str], cwd: Path, timeout: float, env: dict[str, str]) -> str:
    """The command's output; it must succeed."""
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{shlex.join(command)} failed:\n{output[-4000:]}"
    return output


def new_virtualenv(path: Path, env: dict[str, str]) -> Path:
    """A fresh virtualenv (no system site-packages) and its python. It has no pip of its own
    (making one takes longer than the app's install): pip_install uses this run's pip."""
    run([sys.executable, "-m", "venv", "--without-pip", str(path)], path.parent, 300, env)
    return path / "bin" / "python"


def pip_install(python: Path, words: list[str], cwd: Path, env: dict[str, str]) -> None:
    """`pip install WORDS` into python's virtualenv. pip's cache (which `make test` filled)
    serves the same files a download would; installed files are not byte-compiled (Python
    compiles what it imports)."""
    words = [word for word in words if word != "--no-cache-dir"]
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    run([*pip, *words, "--no-compile"], cwd, 300, env)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def fetch(url: str, data: dict[str, Any] | None = None) -> tuple[int, str, str]:
    """(status, content type, body) for a GET, or a JSON POST when data is given."""
    body = None if data is None else json.dumps(data).encode()
    headers = {} if data is None else {"Content-Type": "application/json"}
    request = urllib.request.Request(url, data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return (
                response.status,
                response.headers.get("content-type", ""),
                response.read().decode(errors="replace"),  # an icon is not text
            )
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers.get("content-type", ""), error.read().decode()


@contextmanager
def serving(command: list[str], cwd: Path, env: dict[str, str], log_path: Path) -> Iterator[str]:
    """The server command started from cwd on 127.0.0.1:env["PORT"], its address once
    /healthz answers 200; stopped afterwards. Should another process take the port first,
    env["PORT"] becomes another."""

    def log_text() -> str:
        return log_path.read_text(encoding="utf-8", errors="replace")[-4000:]

    for _attempt in range(3):
        with log_path.open("wb") as log:
            server = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=log)
        try:
            server.wait(timeout=3)
        except subprocess.TimeoutExpired:
            break
        if "address already in use" not in log_text().lower():
            break
        env["PORT"] = str(free_port())
    base = f"http://127.0.0.1:{env['PORT']}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert server.poll() is None, f"{shlex.join(command)} exited:\n{log_text()}"
            try:
                if fetch(f"{base}/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"no 200 from /healthz within {START_TIMEOUT:.0f} s:\n{log_text()}")
            time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

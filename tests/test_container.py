"""The container image, without Docker: install and start the app as the Dockerfile does.

The Dockerfile is parsed, so this stays in step with it: the files it COPYs go into a fresh
/app-like folder, its `RUN pip install ...` runs into a clean virtualenv, and its CMD
starts the server from that folder, which must then serve pages, the API and /healthz.
"""

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
SETTINGS_ENV = ("DATABASE_URL", "HOST", "PORT", "ROOT_PATH", "FORWARDED_ALLOW_IPS", "BACKUP_DIR")
START_TIMEOUT = 30.0
PG = "postgresql+psycopg://crownkeeper@127.0.0.1/crownkeeper"


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined, comments gone."""
    result: list[tuple[str, str]] = []
    pending = ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        keyword, _, arguments = line.partition(" ")
        result.append((keyword.upper(), arguments.strip()))
    return result


def arguments(keyword: str) -> list[str]:
    return [args for kw, args in instructions() if kw == keyword]


def exec_form(text: str) -> list[str]:
    """A JSON-array (exec form) command, or a shell-form one run the way Docker would."""
    if text.startswith("["):
        command = json.loads(text)
        assert isinstance(command, list) and all(isinstance(part, str) for part in command)
        return command
    return ["/bin/sh", "-c", text]


def pip_install_command() -> list[str]:
    """The arguments of the Dockerfile's `RUN pip install ...`, up to any `&&`."""
    runs = [args for args in arguments("RUN") if re.match(r"(python3? -m )?pip3? install\b", args)]
    assert len(runs) == 1, f"expected one `RUN pip install` in the Dockerfile, found {runs}"
    words = shlex.split(runs[0].split("&&")[0])
    return words[words.index("install") :]


def env_defaults() -> dict[str, str]:
    """The variables the Dockerfile's ENV lines set (key=value form)."""
    found: dict[str, str] = {}
    for args in arguments("ENV"):
        for word in shlex.split(args):
            key, sep, value = word.partition("=")
            assert sep, f"use ENV key=value, not {args!r}"
            found[key] = value
    return found


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


def test_dockerfile_runs_as_a_user_with_a_volume_and_a_health_check() -> None:
    assert "/data" in arguments("VOLUME") or '["/data"]' in arguments("VOLUME")
    users = arguments("USER")
    assert users, "the image must not run as root: add a USER"
    assert users[-1].split(":")[0] not in {"root", "0"}
    checks = arguments("HEALTHCHECK")
    assert len(checks) == 1 and "CMD" in checks[0]
    assert not re.search(r"\b(curl|wget)\b", checks[0]), "the slim image has no curl"
    assert "/healthz" in checks[0]
    assert exec_form(arguments("CMD")[-1]) == ["python", "-m", "app"]
    assert "-e" not in pip_install_command() and "--editable" not in pip_install_command()
    # The same image serves PostgreSQL: its driver is the postgres extra.
    assert ".[postgres]" in pip_install_command()
    assert env_defaults().get("DATABASE_URL", "").startswith("sqlite:////data/")
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {".venv", "data", ".git"} <= set(ignored)


def copy_context(dest: Path) -> None:
    """Do the Dockerfile's COPY lines (sources relative to the repo, dest to WORKDIR)."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for args in arguments("COPY"):
        *sources, target = shlex.split(args)
        assert not any(s.startswith("--") for s in sources), "COPY flags are not handled here"
        for source in sources:
            path = ROOT / source
            assert path.exists(), f"the Dockerfile COPYs {source}, which does not exist"
            if path.is_dir():
                shutil.copytree(path, dest / target, ignore=skip, dirs_exist_ok=True)
            else:
                into = dest / target
                into.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, into / path.name)


def run(command: list[str], cwd: Path, timeout: float, env: dict[str, str]) -> str:
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{shlex.join(command)} failed:\n{output[-4000:]}"
    return output


@pytest.mark.timeout(900)  # a fresh virtualenv and pip install: minutes on a busy machine
def test_installed_like_the_image_the_app_serves(tmp_path: Path) -> None:
    workdir = tmp_path / "app"  # /app in the image
    workdir.mkdir()
    copy_context(workdir)

    base_env = {k: v for k, v in os.environ.items() if k not in SETTINGS_ENV}
    for name in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"):
        base_env.pop(name, None)
    venv = tmp_path / "venv"
    # A virtualenv without pip of its own (making one takes longer than the app's install);
    # the test run's pip installs into it (`--python`), as the image's pip would.
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path, 300, base_env)
    python = venv / "bin" / "python"
    # The image keeps no pip cache; here the cache `make test` filled serves the same files
    # (what gets installed is the same), instead of downloading everything again, and the
    # installed files are not byte-compiled (Python compiles what it imports).
    install = [word for word in pip_install_command() if word != "--no-cache-dir"]
    pip = [sys.executable, "-m", "pip", "--python", str(python), *install, "--no-compile"]
    run(pip, workdir, 300, base_env)

    # The package is in site-packages too, but `python -m app` from WORKDIR imports the copy
    # beside templates/, static/ and migrations/.
    env = {
        **base_env,
        "PATH": f"{venv / 'bin'}{os.pathsep}{base_env.get('PATH', '')}",
        **env_defaults(),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'data' / 'crownkeeper.db'}",
        "BACKUP_DIR": str(tmp_path / "data" / "backups"),
        "HOST": "127.0.0.1",
        "PORT": str(free_port()),
    }
    project_dir = run(
        [str(python), "-c", "from app.config import PROJECT_DIR; print(PROJECT_DIR)"],
        workdir,
        60,
        env,
    )
    assert Path(project_dir.strip()) == workdir.resolve()
    # The postgres extra brought PostgreSQL's driver: DATABASE_URL=postgresql+psycopg:// works.
    run(
        [str(python), "-c", f"from app.db import check_driver; check_driver({PG!r})"],
        workdir,
        60,
        env,
    )

    command = exec_form(arguments("CMD")[-1])
    command = [str(python) if word == "python" else word for word in command]
    log_path = tmp_path / "server.log"

    def log_text() -> str:
        return log_path.read_text(encoding="utf-8", errors="replace")[-4000:]

    # The server binds the port itself; should another process take it first, try another.
    for _attempt in range(3):
        with log_path.open("wb") as log:
            server = subprocess.Popen(command, cwd=workdir, env=env, stdout=log, stderr=log)
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
        health = (0, "", "")
        while time.monotonic() < deadline:
            assert server.poll() is None, f"the server exited:\n{log_text()}"
            try:
                health = fetch(f"{base}/healthz")
            except OSError:
                time.sleep(0.2)
                continue
            if health[0] == 200:
                break
            if health[0] == 404 and fetch(f"{base}/")[0] == 200:
                break  # up, but without /healthz: reported below, after the other checks
            time.sleep(0.2)
        else:
            pytest.fail(f"no answer within {START_TIMEOUT:.0f} s:\n{log_text()}")

        status, content_type, page = fetch(f"{base}/")
        assert status == 200 and content_type.startswith("text/html"), log_text()
        assert "<html" in page
        assets = re.findall(r'(?:href|src)="([^"]*/static/[^"]+)"', page)
        assert assets, "the home page links no /static/ files"
        for asset in assets:
            url = asset if asset.startswith("http") else base + asset
            assert fetch(url)[0] == 200, f"{asset} is not served"

        status, _, body = fetch(f"{base}/api/games", {"players": ["Ann", "Bob"]})
        assert status == 201, body
        game = json.loads(body)
        assert game["players"] == ["Ann", "Bob"]
        assert fetch(f"{base}/api/games/{game['code']}")[0] == 200
        assert (tmp_path / "data" / "crownkeeper.db").exists()

        assert health[0] == 200, "the Dockerfile's HEALTHCHECK asks for /healthz: it is missing"
        assert json.loads(health[2]) == {"status": "ok"}
        check = exec_form(re.sub(r"^.*?\bCMD\s+", "", arguments("HEALTHCHECK")[0]))
        run(check, workdir, 30, env)  # the image's own health check, with PATH's python
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

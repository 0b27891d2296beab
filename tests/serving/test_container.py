"""The container image, without Docker: build and install the app as the Dockerfile does.

The Dockerfile is parsed, so this stays in step with it: the files its build stage COPYs go
into a fresh folder, where its `RUN pip wheel ...` makes the wheels; its final stage's
`RUN pip install ...` installs them into a clean virtualenv, and its CMD starts the server
from an empty folder (the image holds no source tree), which must then serve pages, the API
and /healthz.
"""

import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from tests.installed import (
    ROOT,
    clean_environment,
    fetch,
    free_port,
    new_virtualenv,
    pip_install,
    run,
    serving,
)

DOCKERFILE = ROOT / "Dockerfile"
PG = "postgresql+psycopg://crownkeeper@127.0.0.1/crownkeeper"
BUILD_STAGE = "build"


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


def stages() -> dict[str, list[tuple[str, str]]]:
    """Each stage's instructions by its name (FROM ... AS name); the final stage's is ""."""
    found: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for keyword, args in instructions():
        if keyword == "FROM":
            words = args.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else ""
            current = found.setdefault(name, [])
        current.append((keyword, args))
    assert "" in found, "the image's stage (the last FROM) must not be named"
    return found


def arguments(keyword: str, stage: str = "") -> list[str]:
    return [args for kw, args in stages()[stage] if kw == keyword]


def exec_form(text: str) -> list[str]:
    """A JSON-array (exec form) command, or a shell-form one run the way Docker would."""
    if text.startswith("["):
        command = json.loads(text)
        assert isinstance(command, list) and all(isinstance(part, str) for part in command)
        return command
    return ["/bin/sh", "-c", text]


def pip_command(stage: str, subcommand: str) -> tuple[list[str], dict[str, str]]:
    """The words of the stage's one `RUN pip SUBCOMMAND ...` from SUBCOMMAND on (up to any
    `&&`), and its bind mount's options (empty without one)."""
    found = []
    for args in arguments("RUN", stage):
        mount: dict[str, str] = {}
        while args.startswith("--mount="):
            option, _, args = args.partition(" ")
            mount = dict(pair.split("=", 1) for pair in option[len("--mount=") :].split(","))
            args = args.strip()
        if re.match(rf"(python3? -m )?pip3? {subcommand}\b", args):
            words = shlex.split(args.split("&&")[0])
            found.append((words[words.index(subcommand) :], mount))
    assert len(found) == 1, f"expected one `RUN pip {subcommand}` in stage {stage!r}: {found}"
    return found[0]


def env_defaults() -> dict[str, str]:
    """The variables the image's ENV lines set (key=value form)."""
    found: dict[str, str] = {}
    for args in arguments("ENV"):
        for word in shlex.split(args):
            key, sep, value = word.partition("=")
            assert sep, f"use ENV key=value, not {args!r}"
            found[key] = value
    return found


def test_dockerfile_runs_as_a_user_with_a_volume_and_a_health_check() -> None:
    assert "/data" in arguments("VOLUME") or '["/data"]' in arguments("VOLUME")
    users = arguments("USER")
    assert users, "the image must not run as root: add a USER"
    assert users[-1].split(":")[0] not in {"root", "0"}
    checks = arguments("HEALTHCHECK")
    assert len(checks) == 1 and "CMD" in checks[0]
    assert not re.search(r"\b(curl|wget)\b", checks[0]), "the slim image has no curl"
    assert "/healthz" in checks[0]
    assert exec_form(arguments("CMD")[-1]) == ["crownkeeper", "serve"]
    assert env_defaults().get("DATABASE_URL", "").startswith("sqlite:////data/")
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {".venv", "data", ".git"} <= set(ignored)


def test_the_image_installs_the_wheel_and_holds_no_source_tree() -> None:
    assert not arguments("COPY"), "the image copies no source: it installs the build's wheels"
    wheel, _ = pip_command(BUILD_STAGE, "wheel")
    install, mount = pip_command("", "install")
    # The same image serves PostgreSQL: its driver is the postgres extra.
    assert ".[postgres]" in wheel and "crownkeeper[postgres]" in install
    assert "-c" in wheel and "constraints.txt" in wheel  # the versions CI tested
    assert "--no-index" in install and "-e" not in install and "--editable" not in install
    assert mount.get("from") == BUILD_STAGE
    assert mount.get("source") == wheel[wheel.index("--wheel-dir") + 1]
    assert install[install.index("--find-links") + 1] == mount.get("target")


def copy_context(stage: str, dest: Path) -> None:
    """Do the stage's COPY lines (sources relative to the repo, dest to its WORKDIR)."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for args in arguments("COPY", stage):
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


@pytest.mark.slow
@pytest.mark.timeout(900)  # wheels and a fresh virtualenv's install: minutes on a busy machine
def test_installed_like_the_image_the_app_serves(tmp_path: Path) -> None:
    base_env = clean_environment()
    source = tmp_path / "src"  # the build stage's WORKDIR
    source.mkdir()
    copy_context(BUILD_STAGE, source)
    wheels = tmp_path / "wheels"
    wheel, _ = pip_command(BUILD_STAGE, "wheel")
    in_stage = wheel[wheel.index("--wheel-dir") + 1]
    wheel = [str(wheels) if word == in_stage else word for word in wheel]
    # The image's build keeps no pip cache; here the cache `make test` filled serves the same
    # files instead of downloading everything again.
    wheel = [word for word in wheel if word != "--no-cache-dir"]
    run([sys.executable, "-m", "pip", *wheel], source, 300, base_env)

    workdir = tmp_path / "app"  # /app in the image: empty
    workdir.mkdir()
    python = new_virtualenv(tmp_path / "venv", base_env)
    install, mount = pip_command("", "install")
    install = [str(wheels) if word == mount["target"] else word for word in install]
    pip_install(python, install, workdir, base_env)

    env = {
        **base_env,
        "PATH": f"{python.parent}:{base_env.get('PATH', '')}",
        **env_defaults(),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'data' / 'crownkeeper.db'}",
        "BACKUP_DIR": str(tmp_path / "data" / "backups"),
        "HOST": "127.0.0.1",
        "PORT": str(free_port()),
    }
    where = run([str(python), "-c", "import app; print(app.__file__)"], workdir, 60, env)
    assert Path(where.strip()).is_relative_to(tmp_path / "venv")
    # The postgres extra brought PostgreSQL's driver: DATABASE_URL=postgresql+psycopg:// works.
    run(
        [str(python), "-c", f"from app.db import check_driver; check_driver({PG!r})"],
        workdir,
        60,
        env,
    )

    command = exec_form(arguments("CMD")[-1])
    command = [str(python.parent / command[0]), *command[1:]]
    with serving(command, workdir, env, tmp_path / "server.log") as base:
        status, content_type, page = fetch(f"{base}/")
        assert status == 200 and content_type.startswith("text/html")
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
        assert json.loads(fetch(f"{base}/healthz")[2]) == {"status": "ok"}
        check = exec_form(re.sub(r"^.*?\bCMD\s+", "", arguments("HEALTHCHECK")[0]))
        run(check, workdir, 30, env)  # the image's own health check, with PATH's python

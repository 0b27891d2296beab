"""Installs that do not drift: constraints.txt pins every dependency pyproject.toml names."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_constraints_pin_every_dependency_to_one_version():
    lines = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    assert lines, "constraints.txt is empty: run make lock"
    pinned = {}
    for line in lines:
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!-]+)", line)
        assert match, f"not a name==version line: {line!r}"
        pinned[canonical(match[1])] = match[2]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = project["dependencies"] + [
        dep for extra in project["optional-dependencies"].values() for dep in extra
    ]
    for requirement in wanted:
        name = canonical(re.match(r"[A-Za-z0-9._-]+", requirement)[0])
        assert name in pinned, f"{name} is not pinned in constraints.txt: run make lock"


def test_make_run_and_make_test_install_with_the_constraints():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    installs = re.findall(r"^\t\$\(PIP\) install (.*)$", makefile, flags=re.MULTILINE)
    assert installs and all("-c $(CONSTRAINTS)" in line for line in installs)
    stamps = re.findall(r"^\$\(VENV\)/\.installed-(?:run|test): (.*)$", makefile, re.MULTILINE)
    assert len(stamps) == 2 and all("$(CONSTRAINTS)" in deps for deps in stamps)

"""compose.yaml runs the container locked down and keeps daily backups; make can back up."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def service() -> dict:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    return compose["services"]["crownkeeper"]


def test_the_container_runs_locked_down():
    crownkeeper = service()
    assert crownkeeper["read_only"] is True
    assert any(str(entry).startswith("/tmp") for entry in crownkeeper["tmpfs"])
    assert crownkeeper["cap_drop"] == ["ALL"]
    assert any("no-new-privileges" in str(option) for option in crownkeeper["security_opt"])
    assert crownkeeper["mem_limit"]
    logging = crownkeeper["logging"]
    assert logging["options"]["max-size"] and logging["options"]["max-file"]


def test_the_container_keeps_daily_backups_in_its_volume():
    crownkeeper = service()
    assert crownkeeper["environment"]["BACKUP_DIR"] == "/data/backups"
    assert "ENV DATABASE_URL=sqlite:////data/crownkeeper.db \\\n    BACKUP_DIR=/data/backups" in (
        ROOT / "Dockerfile"
    ).read_text(encoding="utf-8")


def test_make_has_backup_and_bench_abuse():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "\nbackup:" in makefile and "-m app backup" in makefile
    assert "\nbench-abuse:" in makefile and "bench/abuse.py" in makefile

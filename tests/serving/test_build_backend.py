"""The build backend (backend/precompress.py) writes a Brotli and a gzip copy of each static
file worth it, the same bytes every build, and lets no copy outlive its file."""

import gzip
import tomllib

import brotli

from tests.installed import ROOT, build_backend


def write_copies(folder):
    return build_backend().write_copies(folder)


def test_pyproject_builds_through_the_backend_with_brotli():
    build = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]
    assert build["build-backend"] == "precompress" and build["backend-path"] == ["backend"]
    assert any(requirement.startswith("brotli") for requirement in build["requires"])
    backend = build_backend()
    assert callable(backend.build_wheel) and callable(backend.build_editable)
    assert callable(backend.build_sdist) and callable(backend.get_requires_for_build_wheel)


def test_copies_hold_the_files_bytes_and_follow_changes(tmp_path):
    (tmp_path / "vendor").mkdir()
    script = tmp_path / "vendor" / "lib.js"
    script.write_text("var tally = 0;\n" * 100)
    (tmp_path / "icon.png").write_bytes(b"\x89PNG" * 400)
    (tmp_path / "tiny.css").write_text("a{}")
    written = write_copies(tmp_path)
    assert sorted(p.name for p in written) == ["lib.js.br", "lib.js.gz"]
    assert (
        brotli.decompress((tmp_path / "vendor" / "lib.js.br").read_bytes()) == script.read_bytes()
    )
    assert gzip.decompress((tmp_path / "vendor" / "lib.js.gz").read_bytes()) == script.read_bytes()
    assert write_copies(tmp_path) == []  # the same bytes again: nothing rewritten

    script.write_text("var tally = 1;\n" * 100)
    assert len(write_copies(tmp_path)) == 2
    assert gzip.decompress((tmp_path / "vendor" / "lib.js.gz").read_bytes()) == script.read_bytes()
    script.unlink()
    write_copies(tmp_path)
    assert not list(tmp_path.rglob("*.br")) and not list(tmp_path.rglob("*.gz"))


def test_the_languages_catalogues_are_compiled_at_install(tmp_path, monkeypatch):
    import gettext
    import shutil

    from app import i18n

    folder = tmp_path / "locale"
    shutil.copytree(ROOT / "app" / "locale", folder, ignore=shutil.ignore_patterns("*.mo"))
    written = build_backend().compile_catalogues(folder)
    assert sorted(p.parent.parent.name for p in written) == ["de", "es", "fr", "nl"]
    with (folder / "de" / "LC_MESSAGES" / "messages.mo").open("rb") as mo:
        assert gettext.GNUTranslations(mo).gettext("Language") == "Sprache"
    # The server loads what the install compiled; a .po changed since is compiled again.
    monkeypatch.setattr(i18n, "LOCALE_DIR", folder)
    i18n.translations.cache_clear()
    try:
        assert i18n.translations("de").gettext("Language") == "Sprache"
        po = folder / "de" / "LC_MESSAGES" / "messages.po"
        po.write_text(
            po.read_text(encoding="utf-8").replace('msgstr "Sprache"', 'msgstr "Sprachwahl"'),
            encoding="utf-8",
        )
        mo = po.with_suffix(".mo")
        stale = po.stat().st_mtime - 60
        import os

        os.utime(mo, (stale, stale))
        i18n.translations.cache_clear()
        assert i18n.translations("de").gettext("Language") == "Sprachwahl"
    finally:
        i18n.translations.cache_clear()

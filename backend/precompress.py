"""The build backend: setuptools', after writing a Brotli (.br) and a gzip (.gz) copy of each
static file worth compressing, so an install (editable or a wheel) serves them ready-made,
and compiling each language's catalogue (app/locale/<code>/LC_MESSAGES/messages.po) into its
messages.mo, which app/i18n.py loads (it compiles the .po itself when a .mo is missing or
older).

pyproject.toml names it (`backend-path`); `make static` runs it as a script to write the
copies again after a change. The server checks each copy against its file before serving
it and compresses on the fly when a copy is missing or stale, so nothing breaks without them.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from setuptools import build_meta as setuptools_backend
from setuptools.build_meta import *  # noqa: F403 (every hook setuptools offers, as is)

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "app" / "locale"
COMPRESSED_SUFFIXES = (".css", ".js", ".svg", ".json", ".txt", ".html", ".webmanifest")
MINIMUM_SIZE = 512
"""Smaller files are sent as they are: a copy would save next to nothing."""


def _brotli_compress(source: bytes) -> bytes | None:
    try:
        import brotli
    except ImportError:  # a build without its declared requirements: gzip copies only
        return None
    return bytes(brotli.compress(source, mode=brotli.MODE_TEXT, quality=11))


def write_copies(static_dir: Path = STATIC_DIR) -> list[Path]:
    """Write each static file's .br and .gz copy where it differs from what is there (and
    drop copies whose file is gone or too small); the copies written."""
    written = []
    for copy in [*static_dir.rglob("*.br"), *static_dir.rglob("*.gz")]:
        source = copy.with_suffix("")
        if not source.is_file() or not _worth_compressing(source):
            copy.unlink()
    for source in sorted(static_dir.rglob("*")):
        if not source.is_file() or not _worth_compressing(source):
            continue
        data = source.read_bytes()
        copies = {".gz": gzip.compress(data, compresslevel=9, mtime=0)}
        brotli_bytes = _brotli_compress(data)
        if brotli_bytes is not None:
            copies[".br"] = brotli_bytes
        for suffix, packed in copies.items():
            copy = source.with_name(source.name + suffix)
            if not copy.is_file() or copy.read_bytes() != packed:
                copy.write_bytes(packed)
                written.append(copy)
    return written


def compile_catalogues(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Compile each language's messages.po into messages.mo (untranslated and fuzzy entries
    left out, so they fall back to English); the .mo files written."""
    try:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
    except ImportError:  # a build without its declared requirements: compiled on first use
        return []
    written = []
    for po_path in sorted(locale_dir.glob("*/LC_MESSAGES/messages.po")):
        with po_path.open("rb") as po:
            catalog = read_po(po, locale=po_path.parent.parent.name)
        mo_path = po_path.with_suffix(".mo")
        with mo_path.open("wb") as mo:
            write_mo(mo, catalog, use_fuzzy=False)
        written.append(mo_path)
    return written


def _worth_compressing(path: Path) -> bool:
    return path.suffix in COMPRESSED_SUFFIXES and path.stat().st_size >= MINIMUM_SIZE


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):  # noqa: F811
    """setuptools' wheel, with the compressed copies and the compiled catalogues inside it."""
    write_copies()
    compile_catalogues()
    return setuptools_backend.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):  # noqa: F811
    """setuptools' editable install, the copies written beside the static files it serves
    and the catalogues compiled beside their .po files."""
    write_copies()
    compile_catalogues()
    return setuptools_backend.build_editable(wheel_directory, config_settings, metadata_directory)


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else STATIC_DIR
    changed = write_copies(folder)
    print(f"{len(changed)} compressed copies written in {folder}")
    if len(sys.argv) <= 1:
        compiled = compile_catalogues()
        print(f"{len(compiled)} catalogues compiled in {LOCALE_DIR}")

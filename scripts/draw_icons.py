"""Draw the app's home-screen icons from static/crown.svg: the crown in gold on the pages'
dark background, as PNG at 192 and 512 px (the 512 also as a maskable icon, the crown inside
the centre circle every launcher keeps) and 180 px for iPhones' apple-touch-icon.

Run: `python scripts/draw_icons.py` (or `make icons`); the PNGs go to static/icons/. Nothing
but the standard library: the crown is polygons, filled with 4x4 samples a pixel.
"""

from __future__ import annotations

import re
import struct
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "static" / "crown.svg"
OUT = ROOT / "static" / "icons"
BACKGROUND = (0x14, 0x14, 0x18)  # the pages' dark --bg
SAMPLES = 4

# (file name, size in px, the share of the icon's width the crown's 32-unit box takes)
ICONS = (
    ("icon-192.png", 192, 0.84),
    ("icon-512.png", 512, 0.84),
    ("icon-maskable-512.png", 512, 0.56),  # within the 80% circle a launcher may cut to
    ("apple-touch-icon.png", 180, 0.76),
)

Point = tuple[float, float]


def read_crown(svg: str) -> tuple[list[list[Point]], tuple[int, int, int], float]:
    """The SVG's shapes as polygons (its path of M, l and z, and its rectangles), the fill
    colour and the viewBox size."""
    view = float(re.search(r'viewBox="0 0 (\d+) \d+"', svg).group(1))  # type: ignore[union-attr]
    colour = re.search(r'fill="#([0-9a-fA-F]{6})"', svg).group(1)  # type: ignore[union-attr]
    fill = (int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16))
    shapes = []
    for path in re.findall(r'<path[^>]* d="([^"]+)"', svg):
        shapes.append(_path_points(path))
    for x, y, width, height in re.findall(
        r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"', svg
    ):
        left, top, right, bottom = (
            float(x),
            float(y),
            float(x) + float(width),
            float(y) + float(height),
        )
        shapes.append([(left, top), (right, top), (right, bottom), (left, bottom)])
    return shapes, fill, view


def _path_points(path: str) -> list[Point]:
    """Points of a path of absolute M/L and relative l pairs, closed by z."""
    points: list[Point] = []
    relative = False
    tokens = re.findall(r"[MLlz]|-?[\d.]+", path)
    numbers: list[float] = []
    for token in tokens:
        if token in "MLlz":
            relative = token == "l"
            continue
        numbers.append(float(token))
        if len(numbers) == 2:
            x, y = numbers
            if relative and points:
                x, y = points[-1][0] + x, points[-1][1] + y
            points.append((x, y))
            numbers = []
    return points


def coverage(shapes: list[list[Point]], size: int, scale: float, offset: float) -> list[float]:
    """How much of each pixel the shapes cover (0 to 1), by even-odd scanlines through
    SAMPLES x SAMPLES points a pixel."""
    covered = [0.0] * (size * size)
    edges = [(shape[i], shape[(i + 1) % len(shape)]) for shape in shapes for i in range(len(shape))]
    step = 1 / SAMPLES
    weight = 1 / (SAMPLES * SAMPLES)
    for row in range(size * SAMPLES):
        y = ((row + 0.5) * step - offset) / scale
        crossings = sorted(
            x0 + (y - y0) * (x1 - x0) / (y1 - y0)
            for (x0, y0), (x1, y1) in edges
            if (y0 <= y < y1) or (y1 <= y < y0)
        )
        pixel_row = row // SAMPLES * size
        for start, end in zip(crossings[::2], crossings[1::2], strict=True):
            first = max(0, int((start * scale + offset) * SAMPLES - 0.5) + 1)
            last = min(size * SAMPLES - 1, int((end * scale + offset) * SAMPLES - 0.5))
            for column in range(first, last + 1):
                covered[pixel_row + column // SAMPLES] += weight
    return covered


def png(size: int, pixels: bytes) -> bytes:
    """An 8-bit RGB PNG of size x size from rows of pixels."""
    rows = b"".join(b"\x00" + pixels[row * size * 3 : (row + 1) * size * 3] for row in range(size))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def draw(size: int, share: float) -> bytes:
    """The icon of size px, the crown's box taking share of its width, centred."""
    shapes, fill, view = read_crown(SOURCE.read_text())
    scale = size * share / view
    offset = size * (1 - share) / 2
    pixels = bytearray()
    for amount in coverage(shapes, size, scale, offset):
        amount = min(amount, 1.0)
        pixels += bytes(
            round(back + (front - back) * amount)
            for back, front in zip(BACKGROUND, fill, strict=True)
        )
    return png(size, bytes(pixels))


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, size, share in ICONS:
        (OUT / name).write_bytes(draw(size, share))
        print(f"{OUT.relative_to(ROOT) / name}: {size} x {size}")


if __name__ == "__main__":
    sys.exit(main())

"""The installable app's icons (service/static/icon-*.png), drawn here rather than in an editor.

Drawn by a few signed distances (a rounded square, a tile, a tick), antialiased by coverage, and
written as PNG with the standard library's zlib, so the same code always gives the same bytes:
`python -m asset_tools.icons` writes them, and a test checks that the committed files are what
it draws (tests/asset_tools/test_icons.py). The colours are the page's own (judge.css): the bar's
navy, a tile's wheat and brown, the valid verdict's green. No imaging library is needed for three
flat pictures of a few kilobytes.

- `icon-192.png`, `icon-512.png` (purpose "any"): a navy rounded square, a tile with a tick on it;
- `icon-maskable.png` (purpose "maskable", 512 px): navy to the edges, the tile inside the
  central circle of 40 % radius that every launcher mask keeps.
"""

from __future__ import annotations

import math
import struct
import sys
import zlib

# The icons the web manifest lists (names, sizes, purposes) and the page's bar colour are the
# service's facts, written once there; this module only draws them.
from service.installable import ICONS, THEME
from service.static_files import STATIC

NAVY = tuple(bytes.fromhex(THEME.removeprefix("#")))  # the page's bar (judge.css)
WHEAT, BROWN, GREEN = (0xF5, 0xDE, 0xB3), (0x6B, 0x4F, 0x1D), (0x0B, 0x5D, 0x1E)


def _box(x: float, y: float, half: float, radius: float) -> float:
    """Signed distance from (x, y) to a square of half-side `half` centred on 0, corners rounded."""
    qx, qy = abs(x) - half + radius, abs(y) - half + radius
    outside = math.hypot(max(qx, 0.0), max(qy, 0.0))
    return outside + min(max(qx, qy), 0.0) - radius


def _segment(x: float, y: float, ax: float, ay: float, bx: float, by: float) -> float:
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - ax - t * dx, y - ay - t * dy)


def _cover(distance: float, scale: float) -> float:
    """How much of a pixel a shape covers, from its signed distance in units of the icon (one pixel wide edge)."""
    return max(0.0, min(1.0, 0.5 - distance * scale))


def _mix(under: tuple, over: tuple, cover: float) -> tuple:
    """`over` painted on `under` where it covers a pixel's fraction `cover`."""
    return tuple(u + (o - u) * cover for u, o in zip(under, over, strict=True))


def draw(size: int, maskable: bool) -> bytes:
    """RGBA rows of the icon, `size` pixels a side, in units where the icon spans -1 to 1."""
    scale = size / 2  # pixels per unit
    tile = 0.46 if maskable else 0.58  # the tile's half-side: inside the safe circle (0.8) when maskable
    border = tile * 0.09
    tick = [(-0.48 * tile, 0.02 * tile), (-0.14 * tile, 0.36 * tile), (0.5 * tile, -0.34 * tile)]
    stroke = tile * 0.13
    rows = bytearray()
    for j in range(size):
        y = (j + 0.5) / scale - 1
        rows.append(0)  # PNG filter: none
        for i in range(size):
            x = (i + 0.5) / scale - 1
            back = 1.0 if maskable else _cover(_box(x, y, 1.0, 0.36), scale)
            colour = NAVY
            shape = _box(x, y, tile, tile * 0.18)
            if shape < 2 / scale:
                outer = _cover(shape, scale)
                inner = _cover(shape + border, scale)
                ink = _cover(
                    min(_segment(x, y, *tick[0], *tick[1]), _segment(x, y, *tick[1], *tick[2])) - stroke, scale
                )
                colour = _mix(NAVY, _mix(BROWN, _mix(WHEAT, GREEN, ink), inner), outer)
                back = max(back, outer)
            rows.extend(round(c) for c in colour)
            rows.append(round(255 * back))
    return bytes(rows)


def png(size: int, rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA, no interlace
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def icons() -> dict[str, bytes]:
    """Every icon's PNG bytes, by file name."""
    return {name: png(size, draw(size, purpose == "maskable")) for name, (size, purpose) in ICONS.items()}


def main() -> None:
    for name, data in icons().items():
        (STATIC / name).write_bytes(data)
        print(f"wrote {STATIC / name}: {len(data):,} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()

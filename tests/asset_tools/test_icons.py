"""The app's icons: the committed files are what asset_tools/icons.py draws, byte for byte."""

from __future__ import annotations

import pytest

from asset_tools.icons import ICONS, NAVY, STATIC, draw, icons


@pytest.mark.slow
def test_the_committed_icons_are_the_drawn_ones():
    drawn = icons()
    assert sorted(drawn) == sorted(ICONS)
    for name, data in drawn.items():
        assert (STATIC / name).read_bytes() == data, f"{name}: run python -m asset_tools.icons"


def pixel(rows: bytes, size: int, x: int, y: int) -> tuple[int, ...]:
    at = y * (size * 4 + 1) + 1 + x * 4
    return tuple(rows[at : at + 4])


def test_a_maskable_icon_is_opaque_to_its_edges_and_the_others_have_round_corners():
    size = 64
    maskable, plain = draw(size, True), draw(size, False)
    assert pixel(maskable, size, 0, 0) == (*NAVY, 255)
    assert pixel(plain, size, 0, 0)[3] == 0 and pixel(plain, size, size // 2, 0) == (*NAVY, 255)

"""A time as the record writes it, and read back strictly (stamps.py)."""

from __future__ import annotations

import pytest

from tournament import stamps
from tournament.errors import Unreadable


@pytest.mark.parametrize(
    "digits",
    [
        "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669",
        "\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19",
    ],
)
def test_a_time_in_other_digits_is_no_stamp(digits):
    """A stamp is what `stamp` writes, ASCII digits only: strptime alone reads any decimal digits
    (as the year), so a time in them would be taken for a moment, and a row kept
    with a time the console cannot show nor sorts as it reads."""
    written = stamps.stamp(stamps.parse_stamp("2026-05-01T10:31:07.120034Z"))
    # strptime reads any decimal digits in every field: the year alone will do
    other = written[:4].translate({ord("0") + n: digits[n] for n in range(10)}) + written[4:]
    with pytest.raises(ValueError):
        stamps.parse_stamp(other)
    with pytest.raises(Unreadable):
        stamps.read_stamp(other, "devices.paired of device 4")
    assert stamps.parse_stamp(written) == stamps.parse_stamp("2026-05-01T10:31:07.120034Z")

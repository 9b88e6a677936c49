"""service/event/offline_time.py's reading of a device's time: what the API took before it took
any RFC 3339 time is recorded as the same text, so no row's bytes or hash depend on the change."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.event.offline_time import moment_of
from service.event_members import DEVICE_TIME
from tournament.stamps import stamp

moments = st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 30), timezones=st.just(UTC))
offsets = st.integers(min_value=-(24 * 60 - 1), max_value=24 * 60 - 1).map(lambda m: timezone(timedelta(minutes=m)))


@given(moments)
def test_a_time_as_the_record_writes_it_is_read_back_as_the_same_text(moment):
    written = stamp(moment)
    assert re.match(DEVICE_TIME, written)
    assert stamp(moment_of(written)) == written


@given(moments, offsets, st.integers(min_value=0, max_value=9))
def test_any_offset_and_number_of_digits_name_the_moment_to_the_microsecond_below(moment, offset, digits):
    local = moment.astimezone(offset)
    fraction = f"{local.microsecond:06d}999"[:digits]
    sign, minutes = (
        ("-", -offset.utcoffset(None)) if offset.utcoffset(None) < timedelta(0) else ("+", offset.utcoffset(None))
    )
    zone = f"{sign}{minutes // timedelta(hours=1):02d}:{minutes // timedelta(minutes=1) % 60:02d}"
    written = local.strftime("%Y-%m-%dT%H:%M:%S") + (f".{fraction}" if digits else "") + zone
    assert re.match(DEVICE_TIME, written)
    read = moment_of(written)
    kept = int(fraction[:6].ljust(6, "0")) if digits else 0
    assert read == moment.replace(microsecond=kept)


@pytest.mark.parametrize(
    "written",
    [
        "2026-11-22T10:31:07+01:60",
        "2026-11-22T10:31:07-00:60",
        "2026-11-22T10:31:07+24:00",
        "2026-11-22T10:31:60Z",
        "9999-12-31T23:59:59-01:00",  # in UTC, the year 10000
        "0001-01-01T00:30:00+01:00",  # in UTC, the year 0
    ],
)
def test_an_offset_or_a_time_no_calendar_has_is_no_moment(written):
    """The pattern lets these through; no clock shows them. +01:60 is not +02:00: a phone that
    wrote it is wrong, and its time is refused as no moment, not read as another one."""
    assert re.match(DEVICE_TIME, written)
    with pytest.raises(ValueError):
        moment_of(written)

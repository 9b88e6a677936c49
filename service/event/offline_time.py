"""When a judge's phone says it gave a verdict offline: the bounds within which the service
believes that time (docs/tournament.md, "Verdicts given offline")."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from tournament import Device, read_stamp, stamp

from ..event_members import DEVICE_TIME
from ..problems import Problem

# An offline verdict's device_time is believed within these bounds of the service's clock: a phone's
# clock may run a few minutes off, and a phone is not out of reach for longer than an event's day.
CLOCK_SKEW = timedelta(minutes=5)
OFFLINE_HOURS = 12


_FORM = re.compile(DEVICE_TIME)


def moment_of(device_time: str) -> datetime:
    """The moment a device's time (of the form DEVICE_TIME, which the body's type has checked)
    names, to the microsecond: digits past the sixth are dropped (a datetime holds no more), never
    rounded up into a later second. ValueError for a form the type would refuse, a date, hour
    or offset no calendar has, or a moment whose UTC time falls outside the years 1 to 9999 (its
    `stamp` would raise OverflowError, a 500).

    >>> moment_of("2026-11-29T16:34:14.123Z").isoformat()
    '2026-11-29T16:34:14.123000+00:00'
    >>> stamp(moment_of("2026-11-29T17:34:14.123456789+01:00"))
    '2026-11-29T16:34:14.123456Z'
    """
    found = _FORM.match(device_time)
    if found is None:
        raise ValueError(f"{device_time!r} is no RFC 3339 time")
    year, month, day, hour, minute, second, fraction, sign, zone_hours, zone_minutes = found.groups()
    zone = UTC
    if sign is not None:
        offset = timedelta(hours=int(zone_hours), minutes=int(zone_minutes))
        if int(zone_minutes) > 59:
            raise ValueError(f"{device_time!r} has an offset of {zone_minutes} minutes")
        zone = timezone(offset if sign == "+" else -offset)  # ValueError from 24 hours on
    micro = int((fraction or "")[:6].ljust(6, "0"))
    moment = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), micro, zone)
    try:  # the record writes it in UTC: 9999-12-31T23:59:59-01:00 is in a year no datetime holds
        moment.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{device_time!r} is in UTC a moment past the years 1 to 9999") from None
    return moment


def believable(device_time: str, device: Device | None, now: datetime) -> str:
    """The device's time as the record writes times (`stamp`: UTC, 6 digits, Z): the same text
    for the form the API always took, so a row's bytes and hash do not depend on how the device
    wrote its time. Refuse (422 `offline-time`) a time the service cannot believe: later than
    its own clock by more than CLOCK_SKEW, or earlier than the device could have judged without
    it: before it was paired (less the skew) or more than OFFLINE_HOURS ago. The record's own time
    stays the service's; this is only what the phone said, and a phone set to 2099 or 2020 would
    otherwise put that on the record. A time the pattern lets through but no calendar has
    (30 February, 25 o'clock, an offset of 24 hours) is refused the same way."""
    try:
        moment = moment_of(device_time)
    except ValueError:
        raise Problem(
            "offline-time",
            f"device_time {device_time} is no moment of any calendar: check the phone's "
            "clock; this verdict is not recorded, show the phone to the director",
            pointer="/device_time",
        ) from None
    earliest = now - timedelta(hours=OFFLINE_HOURS)
    if device is not None and device.paired is not None:
        earliest = max(earliest, read_stamp(device.paired, f"devices.paired of device {device.id}") - CLOCK_SKEW)
    if moment > now + CLOCK_SKEW:
        why = f"is later than the service's clock ({stamp(now)}) by more than {CLOCK_SKEW.seconds // 60} minutes"
    elif moment < earliest:
        why = (
            f"is before this device could have judged offline (paired at {device.paired if device else '?'}, "
            f"at most {OFFLINE_HOURS} hours ago)"
        )
    else:
        return stamp(moment)
    raise Problem(
        "offline-time",
        f"device_time {device_time} {why}: check the phone's clock; this verdict is "
        "not recorded, show the phone to the director",
        pointer="/device_time",
    )

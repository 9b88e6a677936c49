"""When a judge's phone says it gave a verdict offline: the bounds within which the service
believes that time (docs/tournament.md, "Verdicts given offline")."""

from __future__ import annotations

from datetime import datetime, timedelta

from tournament import Device, parse_stamp, read_stamp, stamp

from ..problems import Problem

# An offline verdict's device_time is believed within these bounds of the service's clock: a phone's
# clock may run a few minutes off, and a phone is not out of reach for longer than an event's day.
CLOCK_SKEW = timedelta(minutes=5)
OFFLINE_HOURS = 12


def believable(device_time: str, device: Device | None, now: datetime) -> None:
    """Refuse (422 `offline-time`) a device's time the service cannot believe: later than its own
    clock by more than CLOCK_SKEW, or earlier than the device could have judged without it: before
    it was paired (less the skew) or more than OFFLINE_HOURS ago. The record's own time stays the
    service's; this is only what the phone said, and a phone set to 2099 or 2020 would otherwise
    put that on the record. A time the pattern lets through but no calendar has (30 February,
    25 o'clock) is refused the same way."""
    try:
        moment = parse_stamp(device_time)
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
        return
    raise Problem(
        "offline-time",
        f"device_time {device_time} {why}: check the phone's clock; this verdict is "
        "not recorded, show the phone to the director",
        pointer="/device_time",
    )

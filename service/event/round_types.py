"""The bodies of tournament mode's rounds (docs/tournament.md, "HTTP API"): opening one, and what a
round is as the director's console lists it: when it opened and closed, its head on the record
(written on the round's sheet once final), the records per device in it, and the judges'
devices that may still hold its offline verdicts.

Apart from the devices' bodies (service/event/api_types.py) and the record's
(service/event/record_types.py), whose time, counts per device and hash a round uses: a round is
the event's own concept, with its own endpoints (/v1/rounds) and its own rules (tournament).
"""

from __future__ import annotations

from typing import Annotated

from msgspec import UNSET, Meta, Struct, UnsetType

from tournament import MAX_NUMBER, Round

from .api_types import DeviceCount, Time
from .record_types import Hash


class RoundRequest(Struct, forbid_unknown_fields=True):
    """Open a round: its number, or the next one when absent."""

    number: Annotated[int, Meta(ge=1, le=MAX_NUMBER)] | UnsetType = UNSET


class PendingDevice(Struct):
    id: int
    name: str | None


class RoundInfo(Struct):
    number: int
    opened: Time
    closed: Time | None
    head_seq: Annotated[int | None, Meta(description="When closed: the last record's number (0: none).")]
    head_hash: Annotated[Hash | None, Meta(description="When closed: that record's hash, for the round's sheet.")]
    challenges: Annotated[
        list[DeviceCount],
        Meta(description="Records per device in the round (`device` null: requests without a device)."),
    ]
    head_final: Annotated[
        bool,
        Meta(
            description="Closed, and its head final: no judge's device that may hold its offline verdicts "
            "is still awaited (`pending`), or the director confirmed it. Until then the head is the record's "
            "at closing, taken again when it becomes final: write it on the sheet only then."
        ),
    ] = False
    pending: Annotated[
        list[PendingDevice],
        Meta(
            description="The judges' devices not in touch for a minute when it closed that have not synced "
            "since: they may hold verdicts judged offline in it."
        ),
    ] = []
    final: Annotated[Time | None, Meta(description="When its head became final after waiting.")] = None

    @classmethod
    def of(cls, round_: Round, counts: list[DeviceCount], names: dict[int, str] | None = None) -> RoundInfo:
        pending = [PendingDevice(device, (names or {}).get(device)) for device in round_.pending or ()]
        return cls(
            round_.number,
            round_.opened,
            round_.closed,
            round_.head_seq,
            round_.head_hash,
            counts,
            round_.head_final,
            pending,
            round_.final,
        )


class RoundList(Struct):
    current: int | None
    rounds: list[RoundInfo]
    outside_rounds: Annotated[list[DeviceCount], Meta(description="Records made while no round was open.")]

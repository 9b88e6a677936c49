"""What tournament mode adds to the service's challenge operations in the OpenAPI document (the
rules of an event's challenge: its record, its keys, its roles and their refusals) and to the
browser lexicon's; service/event/openapi_paths.py's `add_to` calls `amend_challenges`. Apart from
the event's own operations because it edits operations service.openapi wrote, where those add new
ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .recording import NETWORK_PLAYS

# The 503 of every operation that reads or writes the event's store (openapi_paths.py's too).
STORAGE_UNAVAILABLE = (
    "The event's storage cannot be read or written now (`record-unavailable`, with `Retry-After`), "
    "or not until a restart (`record-failed`, no `Retry-After`: asking again cannot help), or not until the "
    "director restores the event's damaged file from a backup (`record-damaged`, no `Retry-After`)."
)


def challenge_notes() -> dict[str, Any]:
    """What tournament mode adds to every challenge operation."""
    return {
        "description": (
            "In an event: the answer carries `record`, the number of the row written before the answer "
            "left. Every verdict to record carries its `idempotency_key` (each play of a batch its own): "
            "without one, 422 `idempotency-key-required` naming the member (`pointer`), nothing recorded; "
            "sent again with the same key, it is recorded once. A paired device's page sends the event "
            "file it was answered by (`event_file`) and its last recorded verdict's key (`last_key`), a "
            "batch once for all its plays: 409 `event-file-split` when another file of the event answered "
            "it, or this one lacks that verdict, nothing recorded. "
            "A device sends its token (`Authorization: Bearer`). `judge` devices challenge at any "
            "time, `table` devices only while a round is open, `lookup` devices and requests without a "
            "token only while none is (403 `lookups-closed`, `no-round`); every verdict is judged with "
            "the event's lexicon (`event init --lexicon`, else the service's default, pinned at the first start), whoever asks (403 `event-lexicon`, "
            "naming it in `lexicon`, nothing recorded); a role's rate limit counts plays, not requests: a device whose role has one "
            "sends one play per request (403 `one-play-per-gap`, for a batch of more), and one asking again "
            "sooner than its role allows, by any route, gets 429 `rate-limited` with `Retry-After`; 401 `device-unknown` or "
            "`device-revoked` for a token that does not pair a device; 503 `record-unavailable` (`Retry-After`) when the "
            "record cannot be written (no unrecorded verdict is ever given). A verdict the device gave "
            "offline (`offline`, with `idempotency_key`, `device_time` and `checksum`) is admitted from "
            "`judge` devices whatever the round, from no one else (403 `offline-not-allowed`: a `table` "
            "device never judges offline), recorded only if `checksum` is the lexicon's (409 "
            "`offline-lexicon-changed`), if the service gives the verdict it says it showed (`shown_valid`; "
            "409 `offline-verdict-differs`, naming no word) and if `device_time` is at most 5 minutes ahead of the service's "
            "clock, no more than 5 minutes before the device's pairing and at most 12 hours old (422 "
            "`offline-time`). Either 409 comes only once the device's rate limit lets it have a verdict (inside "
            "it, 429 whatever the play), and takes a gap as a recorded verdict does; the director's devices list "
            "counts them per reason."
        )
    }


def amend_challenges(operations: dict[str, Any], problem: Callable[..., dict], device: list[dict]) -> None:
    """The challenge operations' answers for devices, and the browser lexicon for paired judges
    only (`device`: the security requirement of a paired device's token). In an event a challenge is only ever POSTed: a GET is 405 (it may be sent again, and
    each would be recorded)."""
    by_query = operations["/v1/challenge"]["get"]
    by_query["description"] = (
        "In an event, refused whatever it asks, and nothing is recorded: every verdict is a row, and a GET may "
        "be sent again by a proxy or a browser. POST the challenge, with an `idempotency_key`."
    )
    by_query["responses"] = {"405": problem("Always, in an event (`Allow: OPTIONS, POST`).")}
    for path in ("/v1/challenge", "/v1/challenges"):
        for method, operation in operations[path].items():
            if method == "get":
                continue
            operation["description"] = (
                operation.get("description", "") + " " + challenge_notes()["description"]
            ).strip()
            operation["responses"].update(
                {
                    "401": problem("A token that pairs no device (`device-unknown`, `device-revoked`)."),
                    "403": problem(
                        "Not now for this role (`lookups-closed`, `no-round`), another "
                        "lexicon than the event's (`event-lexicon`), "
                        "more than one play from a role with a rate limit (`one-play-per-gap`), more "
                        "plays in a batch than a caller without a device or a lookup device sends "
                        "(`batch-too-large`), a second opinion asked by a table device "
                        "(`second-not-allowed`), or an offline verdict from a role that does not judge offline "
                        "(`offline-not-allowed`)."
                    ),
                    "409": problem(
                        "An idempotency key already recorded with another verdict "
                        "(`idempotency-conflict`: its row's number as `record` to the device that "
                        "recorded it, nothing to another), an offline verdict given with "
                        "another lexicon (`offline-lexicon-changed`) or showing another verdict than the service "
                        "gives (`offline-verdict-differs`), a device answered by another "
                        "file of the event (`event-file-split`), a stored value edited by hand that it "
                        "depends on (`record-tampered`), or a table device stored without its table "
                        "(`table-missing`: the director revokes it and adds it again with its table): "
                        "nothing recorded."
                    ),
                    "429": problem(
                        "Too soon for this device (`rate-limited`), or the plays a minute that callers without "
                        f"a device and lookup devices record from one address are spent, or {NETWORK_PLAYS} times "
                        "those from all the addresses of one IPv6 /64 (`plays-limited`, saying which): "
                        "both with `Retry-After`.",
                        retry_after=True,
                    ),
                    "503": problem(
                        "The record cannot be written now (`record-unavailable`, with `Retry-After`), or not "
                        "until the service restarts: its disk failed a write (`record-failed`, no `Retry-After`), "
                        "or the event's file is damaged (`record-damaged`, no `Retry-After`: until the director "
                        "restores it from a backup).",
                        retry_after=True,
                    ),
                }
            )
            unprocessable = operation["responses"].get("422")
            if unprocessable is not None:
                unprocessable["description"] += (
                    " In an event, also a verdict to record without its `idempotency_key` "
                    "(`idempotency-key-required`, `pointer` naming it), a slip's `table` from another "
                    "device than a judge's (`slip-not-allowed`), or an offline verdict whose `device_time` "
                    "cannot be believed (`offline-time`): nothing recorded."
                )
            operation["security"] = [{}, *device]
    browser = operations["/v1/lexicons/{lexicon_id}/browser"]["get"]
    browser["description"] += " In an event, only for a paired judge device, and `Cache-Control: no-store`."
    browser["responses"].update(
        {
            "401": problem("Not a paired device (`device-unknown`, `device-revoked`)."),
            "403": problem("A table or lookup device (`offline-not-allowed`)."),
            "503": problem(STORAGE_UNAVAILABLE, retry_after=True),  # the device is read from the store at each request
        }
    )
    browser["security"] = list(device)


__all__ = ["amend_challenges", "challenge_notes"]

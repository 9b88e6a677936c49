"""What an event adds to a challenge: the one interface between the API's challenge path and an event.

A challenge in an event is the plain challenge plus a hook. The API (service.api) has one path for
every challenge route: read the request, `admit` who asks, find the lexicon, `allow` the plays,
turn the words into keys once, look them up, `record` the verdicts, answer. Outside an event the
hook is `NO_EVENT`, whose methods do nothing, so a plain verdict's bytes and cost are what they
were; in tournament mode it is `service.event.http.Tournament`, which admits by role and round,
holds a role's rate limit per play (not per request), keeps a table device to the event's lexicon,
and records each verdict before it is answered, giving it the record's number and round.

The interface names no web framework: who asks is the implementation's business (in tournament
mode, the bearer token of the request being answered), and what it gets are plain values. The
request being answered is Flask's, or, for a POST /v1/challenge answered in front of Flask
(service.fast_challenge), the WSGI environ that path leaves in `ASKING` while it calls the hook.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextvars import ContextVar
from typing import Any, Protocol

from .problems import Problem
from .registry import Served

# One judged play, as the API hands it to `record`: (words as typed, their keys, the verdict, the
# second opinion's verdict or None, the decoded body member that carries the play's slip — a
# ChallengeRequest or a batch's Play, None for a GET). A plain tuple: built on every challenge, and
# a tuple costs least to build.
Judged = tuple[Sequence[str], Sequence[str], bool, "bool | None", Any]

# The WSGI environ of the challenge answered in front of Flask (service.fast_challenge), while it
# is answered; None inside Flask, whose request is the one asking. A context variable: each
# gevent greenlet and each thread has its own.
ASKING: ContextVar[dict | None] = ContextVar("asking", default=None)

# What a recorded verdict's answer adds: the record's number and round (None: no round open).
Mark = tuple[int, "int | None"]


class EventHook(Protocol):
    """An event's say in a challenge; every method raises a `Problem` to refuse."""

    # Whether verdicts are recorded (an event): then only a POST challenge is answered, whose
    # idempotency key makes a challenge sent again one row; a GET may be sent again by any proxy
    # or browser (it is a safe method to HTTP), and each would be a row.
    recorded: bool

    # The lexicon every verdict is judged with (an event's, pinned), or None: any served one. An
    # unknown lexicon's 404 offers only the names of this one, the only ones the caller can use.
    event_served: Served | None

    def admit(self, offline: bool) -> Any:
        """Before anything is judged: who asks (a caller the other methods are given back) and
        whether its role may challenge now. `offline`: the body is a verdict the device gave
        without the service, sent now."""

    def allow(self, caller: Any, name: str, served: Served, plays: int) -> None:
        """Once the lexicon and the number of plays are known, before any play is read: whether
        this caller may have `plays` verdicts of `served` (asked for as `name`) now (the event's lexicon; a role's rate
        limit counts plays, so a limited role gets one play per gap whatever the route)."""

    def second(self, caller: Any, asked: bool) -> bool:
        """Whether this caller may be given a second opinion (LEXICON_SECOND); a Problem when it
        `asked` for one it may not have. False: none, even when the setting says always."""

    def record(
        self, caller: Any, served: Served, notation: str, plays: Iterable[Judged], second: Served | None, sent: Any
    ) -> Sequence[Mark] | None:
        """Record the judged plays before any answer leaves (all or none); their marks in order,
        or None when nothing is recorded (then the answer is the plain one). `plays` may be a
        generator, read once: outside an event it is never built. `sent`: the request's body
        (one play's slip, or the batch; None for a GET), whose word on the event's file is
        checked once a request."""

    def unready(self) -> str | None:
        """Why /readyz says this instance is not ready for the event (None: it is)."""

    def identity(self) -> dict[str, object]:
        """What /readyz adds: which event this instance serves (`event`, and `event_lexicon`, the
        checksum its lexicon is pinned to), the same on every instance of one event file, which
        file (`event_file`, its own identity), and the limits it holds devices to (`event_limits`)."""

    def refusal(self, problem: Problem) -> Problem:
        """The answer to a refusal of the request being answered (the app's error handlers ask
        for every one): `problem`, or what the event answers first (a device admitted from a
        worker's cache and not checked since is read from the store: its 401 if it is gone)."""


class NoEvent:
    """The plain service's hook: everyone may challenge, nothing is recorded."""

    __slots__ = ()
    recorded = False
    event_served = None

    def admit(self, offline: bool) -> None:
        return None

    def allow(self, caller: Any, name: str, served: Served, plays: int) -> None:
        return None

    def second(self, caller: Any, asked: bool) -> bool:
        return True

    def unready(self) -> str | None:
        return None

    def record(
        self, caller: Any, served: Served, notation: str, plays: Iterable[Judged], second: Served | None, sent: Any
    ) -> None:
        return None

    def identity(self) -> dict[str, object]:
        return {}

    def refusal(self, problem: Problem) -> Problem:
        return problem


NO_EVENT = NoEvent()

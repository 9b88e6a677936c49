"""The answers that say what this server serves: its lexicons (GET /v1/lexicons) and its probes
(GET /healthz, GET /readyz).

A director reads the listing before an event (which lexicon, which version, which words, whether
its file changed on disk); a load balancer or a front end reads the probes (up; ready, with which
lexicons, and in tournament mode which event and which file). They are apart from the
challenge's types (service/types.py) because no challenge reads or writes them: they describe
the server, not a play. Like those, msgspec writes them and the OpenAPI document takes its
schemas from them (service/openapi.py).
"""

from dataclasses import dataclass
from typing import Annotated, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

from lexicon.verdict import Identity

SHA256 = Meta(pattern="^[0-9a-f]{64}$")
# /readyz's 503 to anyone but this computer itself (service.proxies, `from_this_computer`): a
# phone, a spectator on the hall's Wi-Fi or a front end's probe learns what is wrong, not the
# event file's path, the database's address nor its error, which only the laptop's own is told.
NOT_HERE = "; /readyz asked on the service's own computer (at 127.0.0.1 or localhost) says where and why"


@dataclass(frozen=True)
class LexiconInfo(Identity):
    """A loaded lexicon: its identity, and what a director checks before an event."""

    language: str
    words: Annotated[int, Meta(ge=0)]
    words_sha256: Annotated[str, SHA256, Meta(description="SHA-256 of `lexicon dump`: the words themselves.")]
    default: Annotated[bool, Meta(description="Whether the language code names this lexicon.")]
    source: str
    licence: str
    state: (
        Annotated[
            Literal["stale"],
            Meta(
                description=(
                    "Present when the file on disk no longer holds the bytes verified and served; answers "
                    "still come from those."
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    file: Annotated[str, Meta(description="With `state`: the name of that file.")] | UnsetType = UNSET


class LexiconList(Struct):
    lexicons: list[LexiconInfo]


class Health(Struct):
    status: Literal["ok"]


class EventLimits(Struct):
    """The limits this instance holds an event's devices and addresses to (LEXICON_RATE_*): each
    instance's own settings, so a front end's check compares them across an event's instances as it
    compares `event_lexicon`."""

    judge: Annotated[float, Meta(description="Seconds a judge's device waits between challenges (0: none).")]
    table: Annotated[float, Meta(description="Seconds a table's device waits between challenges (0: none).")]
    lookup: Annotated[float, Meta(description="Seconds a lookup kiosk waits between challenges (0: none).")]
    plays: Annotated[
        int,
        Meta(description="Plays a client address without a device may have recorded a minute (0: no limit)."),
    ]


class Ready(Struct):
    status: Literal["ready", "stale"]
    lexicons: list[str]
    stale: (
        Annotated[
            list[str],
            Meta(
                description=(
                    "Files changed on disk since they were verified: still ready, answering from the verified copy."
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    event: (
        Annotated[
            str,
            Meta(
                description=(
                    "In tournament mode, the event this instance serves (an opaque id, the same for every "
                    "instance of one event file): a front end or a check compares it across instances."
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    event_file: (
        Annotated[
            str,
            Meta(
                description=(
                    "In tournament mode, the identity of the event file this instance serves (16 hex digits): "
                    "no two files share one, a backup copy is not served until `lexicon event restore` gives it "
                    "its own, so two instances showing the same `event` and different `event_file` split the record."
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    event_lexicon: (
        Annotated[
            str,
            Meta(
                description=(
                    "In tournament mode, the SHA-256 of the lexicon the event is pinned to (every instance of "
                    "the event serves these very bytes)."
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    event_limits: (
        Annotated[
            EventLimits,
            Meta(
                description=(
                    "In tournament mode, the limits this instance holds the event's devices to: the same "
                    "settings on every instance of the event, or a device is held to each instance's own."
                )
            ),
        ]
        | UnsetType
    ) = UNSET
    events: (
        Annotated[
            Literal["database"],
            Meta(
                description=(
                    "A service of every event in a database: each event at /e/ID/ (its own /readyz there), "
                    "none listed here."
                )
            ),
        ]
        | UnsetType
    ) = UNSET

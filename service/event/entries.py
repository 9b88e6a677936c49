"""The row a judged play becomes: the verdict, the words as typed and in engine tiles, the device,
and what only an event reads from the request's body (a judge's slip table, the idempotency key,
an offline verdict's time and lexicon), refused with a problem when it does not fit; and an
offline verdict the record must refuse (`Refusal`: its phone showed another verdict, or judged with
another list), which the record's write gives once the device's gap allows it a verdict
(tournament/refused_offline.py says why there)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from msgspec import UNSET

from lexicon.errors import show_word
from lexicon.tokenizer import tokenizer
from tournament import Device, Entry, EntryForm

from ..problems import Problem
from ..registry import Served
from .offline_refused import CHANGED, DIFFERS
from .offline_time import believable


def entry_of(
    device: Device | None,
    form: Form,
    words: Sequence[str],
    keys: Sequence[str],
    valid: bool,
    other: bool | None,
    slip,
    now: Callable[[], datetime],
    place: str = "",
) -> tuple[Entry, Problem | None]:
    """One row to record, of `form` (the device's, for the lexicon, notation and second opinion
    judged with), and the problem the record refuses it with once its gap allows (an offline
    verdict the record may not hold), else None. `slip`: the decoded body member that carries the
    play (a ChallengeRequest or a batch's Play, at `place`: `/plays/N`; None for a GET), read here
    for what only an event uses: a judge's slip table, the idempotency key, and an offline
    verdict's time, lexicon and shown verdict."""
    table = key = device_time = checksum = shown = shown_valid = None
    offline = False
    if slip is not None:
        table, key = _given(slip.table), _given(slip.idempotency_key)
        offline = getattr(slip, "offline", None) is True
        device_time = _given(getattr(slip, "device_time", UNSET))
        checksum = _given(getattr(slip, "checksum", UNSET))
        shown_valid = _given(getattr(slip, "shown_valid", UNSET))
        said = getattr(slip, "round", UNSET)
        shown = None if said is UNSET else int(said or 0)  # 0: the phone showed no round
    if key is None:  # a retry (a proxy's, a client's) would be a second row
        raise Problem(
            "idempotency-key-required",
            "in an event every verdict is recorded once: its request names it with an idempotency_key "
            f"(1 to 64 characters, new for each verdict, the same when it is sent again){' at ' + place if place else ''}: "
            "nothing is recorded",
            pointer=f"{place}/idempotency_key",
        )
    if table is not None and (device is None or device.role != "judge"):
        raise Problem(
            "slip-not-allowed",
            f"only a judge device's challenge carries a slip's table, not this one's (table {show_word(table)}"
            f"{' at ' + place if place else ''}); a table device's records carry its own: leave it out",
            pointer=f"{place}/table",
        )
    identity = form.identity
    if not offline and (
        device_time is not None or checksum is not None or shown is not None or shown_valid is not None
    ):
        # the record's time and round are the service's: a phone's own clock, lexicon, round and
        # verdict are believed only for a verdict it gave without the service, never on an online row
        offline_only = (
            ("device_time", device_time),
            ("checksum", checksum),
            ("round", shown),
            ("shown_valid", shown_valid),
        )
        given = next(name for name, value in offline_only if value is not None)
        raise Problem(
            "invalid-request",
            f'{given} goes only with a verdict given offline ("offline": true); '
            "an online challenge is judged and timed by the service: leave it out",
            pointer=f"/{given}",
        )
    refused = None
    if offline:
        if key is None or device_time is None or checksum is None:
            raise Problem(
                "invalid-request",
                "an offline verdict needs its idempotency_key, device_time and checksum",
                pointer="/offline",
            )
        # The record holds what the players were told: an offline verdict is the one this service
        # gives only if the phone judged with this very lexicon (the same words, the same answer).
        # Either refusal is the record's to give, past the device's gap (recording.py): said here,
        # the one for the verdict would tell a request inside the gap the service's verdict.
        if checksum != identity.checksum:
            refused = Problem(
                CHANGED,
                f"this verdict was given with the lexicon of checksum "
                f"{checksum[:12]}…, and {identity.id} is now {identity.checksum[:12]}…: it is not "
                "recorded; show the phone to the director",
                lexicon=identity.id,
            )
        # The same lexicon, yet the phone showed the other verdict: its copy of the list (the
        # browser file beside the .lex, checked for integrity and origin but not word by word) or
        # its lookup is not the service's. Neither verdict is what the record may hold unsaid: the
        # players saw the phone's, the list says the service's. Refused whole, never naming a word.
        elif shown_valid is not None and shown_valid != valid:
            refused = Problem(
                DIFFERS,
                f"the verdict this phone showed is not the one {identity.id} gives for the same words: the "
                "phone's copy of the list and the service's disagree. It is not recorded; show the phone "
                "to the director",
                lexicon=identity.id,
            )
        if refused is not None:
            shown_valid = None  # an entry's shown verdict is its verdict: this one is only refused
    if device_time is not None:
        device_time = believable(device_time, device, now())
    entry = form.entry(
        [word.strip() for word in words],
        form.tiles(keys),
        valid,
        key,
        offline,
        device_time,
        shown,
        None if form.second is None else other,  # the second opinion the players were shown beside the verdict
        table,
        shown_valid,  # None from an older page: the row says what the phone showed is not known
    )
    return entry, refused


def _given(value):
    return None if value is UNSET else value


class Form:
    """What the rows of one device's verdicts of one lexicon, notation and second opinion's
    lexicon share: their tournament.EntryForm (those fields checked once), the lexicon, and the
    engine tiles (`CA[RR]O`) of a play's keys, as the record keeps them beside the words: made
    from the keys the verdict looked up, so a recorded play's words are read once."""

    __slots__ = ("_engine_text", "entry", "identity", "second")

    def __init__(self, device: Device | None, served: Served, notation: str, second: Served | None) -> None:
        identity = self.identity = served.identity
        self.second = None if second is None else second.identity
        other = () if self.second is None else (self.second.id, self.second.version, self.second.checksum)
        self.entry = EntryForm(device, identity.id, identity.version, identity.checksum, notation, *other)
        self._engine_text = tokenizer(served.language, notation).alphabet.engine_text

    def tiles(self, keys: Sequence[str]) -> tuple[str, ...]:
        """The keys' engine tiles, a key at a time (the alphabet's own rule, not a second one: one
        call for the whole play, keys joined by a separator, saved too little; docs/design.md)."""
        engine_text = self._engine_text
        return tuple(engine_text(key) for key in keys)


class Forms:
    """This worker's Form for each device, lexicon, notation and second opinion's lexicon it
    recorded a verdict of: made once, not at each verdict (an entry made whole, its fields all
    checked, and its tile writer, cost the event loop about 8 µs a verdict). Kept by the device
    as read (all its fields: a device paired again is another key), at most SIZE, then started afresh."""

    SIZE = 4096

    def __init__(self) -> None:
        self._made: dict[tuple, Form] = {}

    def __call__(self, device: Device | None, served: Served, notation: str, second: Served | None) -> Form:
        key = (device, served.identity, notation, None if second is None else second.identity)
        form = self._made.get(key)
        if form is None:
            if len(self._made) >= self.SIZE:
                self._made = {}
            form = self._made[key] = Form(device, served, notation, second)
        return form

"""Tournament mode over HTTP: what each caller may do, and the recording of every verdict before
it leaves (docs/tournament.md, "HTTP API"). Who asks (the director, a paired device, nobody) is
callers.py; the row a judged play becomes, entries.py.

`Tournament` is made once per app from the settings (`LEXICON_EVENT`). It is the challenge path's
event hook (service.challenge_hook.EventHook): the API calls `admit` before judging a play (POST
/v1/challenge once its body says whether it is a verdict given offline), `allow` once the lexicon
and the number of plays are known, and `record` after the verdicts, before answering;
`service.event.routes.register` adds the director's and the devices' endpoints, each
admitted here (`director`, `device`). Everything it knows is
in the event's store, shared by every worker process: sessions, devices, rounds, the record, and
the rate limits (read from the record inside its write lock), so two workers behave as one.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable

from lexicon.errors import show_word
from tournament import (
    Device,
    DeviceGone,
    Entry,
    IdempotencyConflict,
    LastKeyMissing,
    MalformedRow,
    PlaysLimited,
    RateLimited,
    Record,
    RoundRefused,
    StorageError,
    TableMissing,
    Unreadable,
    open_event,
)

from ..challenge_hook import Judged, Mark
from ..config import Settings
from ..problems import Problem
from ..proxies import limit_keys
from ..registry import Registry, Served
from ..status_types import NOT_HERE
from ..types import Play
from .api_types import DeviceCount, DeviceInfo, EventInfo
from .callers import UNCHECKED, Caller, Callers, asking, judges_offline, revoked, unknown_token
from .contacts import Contacts
from .entries import Forms, entry_of
from .limits import WrongCodes
from .live_devices import LiveDevices
from .opening import REFUSALS, refuse_guard_holder, served, start_error
from .pin import pin_lexicon
from .refusals import round_refused, storage_problem
from .witness import Witness, said

log = logging.getLogger("service")

# Callers the record cannot name (no device, or a lookup kiosk) are limited in what they can make
# it hold: a batch of at most this many plays (a kiosk checks one play at a time), and a budget of
# recorded plays a minute per client address (LEXICON_RATE_PLAYS, tournament/budget.py), and
# NETWORK_PLAYS times that from all the addresses of one IPv6 /64 (service.proxies, network_of):
# one host may take a new address of its /64 for each request, and a hall's phones share one.
UNNAMED_ROLES = (None, "lookup")
UNNAMED_BATCH = 10
NETWORK_PLAYS = 10
# When each role's online verdicts are answered: a lookup device and nobody only between rounds
# (False), a table device only during one (True); a judge (absent) at any time.
ROUND_RULES = {None: False, "lookup": False, "table": True}


class Tournament(Callers):
    """An event's rules over HTTP, bound to its store; one per app (per worker process)."""

    recorded = True  # every verdict is a row: a GET challenge is refused (service.api)

    def __init__(
        self, settings: Settings, registry: Registry, elsewhere: Callable[[], frozenset[tuple[str, str]]] | None = None
    ):
        """The event opened and its lexicon pinned; StartError, a sentence and not a traceback, when
        that cannot be: no event there, its lock held, its database not answering, the event moved.
        `elsewhere`: for an event in a database (served with all its events, or on its own), the
        lexicons (checksum and id) of its database's other events with a round open (see `admit`,
        service.federation.OtherRounds); None for an event file."""
        self.elsewhere = elsewhere
        try:
            self.db = open_event(settings.event, synchronous=settings.event_sync.upper())
            self._start(settings, registry)
        except BaseException as error:  # nothing of a failed start is kept open (nor of a reload's)
            self._close()
            if isinstance(error, REFUSALS):
                raise start_error(error) from None
            raise

    def _close(self) -> None:
        """The store, closed when the start failed after opening it (a reload's failure keeps nothing open)."""
        if getattr(self, "db", None) is not None:
            self.db.close()

    def _start(self, settings: Settings, registry: Registry) -> None:
        self.settings = settings
        self.registry = registry
        self._unreadable: set[str] = set()  # where a stored value could not be read back: logged once each
        refuse_guard_holder(settings.event, self.db.may_alter_guard())  # never as a role that could unguard the record
        event = served(settings, self.db.event())  # set once by `event init`, never changed; no backup copy
        self.file = event.file.identity
        self.restored_from = event.file.restored_from
        self.witness = Witness(self.db, event.file)  # what the devices saw, against this file (witness.py)
        self.name, self.lexicon = event.name, event.lexicon
        self.event_id = hashlib.sha256(f"{event.created}\n{event.name}".encode()).hexdigest()[:16]
        # the event's lexicon as served (a reload makes a new app, so a new Tournament): pinned
        # by checksum, and its language's default here whatever LEXICON_FILES's order says, so
        # `es` is the same lexicon on every instance of the event
        self.pin = pin_lexicon(self.db, event, registry)
        self.wrong_codes = WrongCodes()  # wrong pairing codes per address, in this worker (limits.py)
        self.contacts = Contacts(self.db)  # each device's last request, noted in this worker (contacts.py)
        self.live = LiveDevices()  # devices by token hash, for a verdict to record: the write checks them
        self.forms = Forms()  # what a device's rows of one lexicon share, made once (entries.py)
        self.event_served = None if self.pin is None else registry.by_checksum(self.pin.checksum)
        if self.event_served is not None:
            registry.make_default(self.event_served)

    # -- the challenge's hook (service.challenge_hook.EventHook) ------------------------------------

    def admit(self, offline: bool) -> Caller:
        """Before a play is judged: the device and its role's rules for the moment (401, 403).

        A verdict a judge's phone gave offline and sends now is admitted whatever the round is
        now: it was given earlier, perhaps in a round closed since. From anyone else it is refused
        (403 `offline-not-allowed`): only a judge's phone gets the browser lexicon; a table device
        (mesa) never judges without the service, whose record and rate limit are what keep the
        players at a table from using it as a dictionary, nor does a lookup device or an unpaired
        phone.

        The device may come from this worker's cache of live devices (live_devices.py): the
        record's write checks that it still holds its token, not revoked, and any refusal before
        it reads the store first (`refusal`), so a device revoked or paired again is refused at
        its next request as it was when every request read the store. The round is read from the
        store at each request of a role that needs it.
        """
        caller = self.recorder()
        role = caller.role
        if offline:
            judges_offline(role)
            return Caller(caller.device, None, caller.token_hash, offline=True)
        rule = ROUND_RULES.get(role)
        if rule is None:  # a judge, answered at any moment: the round is not read (a read transaction less)
            return caller
        try:
            current = self.db.current_round()
        except StorageError as error:
            raise storage_problem(error) from None
        if (current is not None) != rule:
            raise round_refused(None if current is None else current.number)
        if not rule and self.elsewhere is not None:
            self._played_elsewhere()
        return Caller(caller.device, rule, caller.token_hash)

    def _played_elsewhere(self) -> None:
        """A lookup (no device, or a kiosk) between the rounds of an event in a database (served
        with all its events, or on its own): refused (403 `lookups-closed`) while another event of
        the database that judges in this event's language has a round open. Its players, who may
        look nothing up during their round, would otherwise look it up here: event ids are no
        secret, and an event between its rounds, or of another day, answers any phone. Read at
        admission, as the other events' rounds are (at most LOOK_AGAIN seconds old:
        service.federation.OtherRounds); the write
        checks this event's own round only. An event pinned to a list this service does not
        serve (its own instances serve it) is played in that list's language all the same, known
        here by the list's id (another version of a list served here: a list updated mid-season);
        only a list this service knows nothing of, not even its id, closes nothing here."""
        served = self.event_served
        if served is None:
            return
        try:
            playing = self.elsewhere()
        except StorageError as error:
            raise storage_problem(error) from None
        for checksum, lexicon_id in playing:
            other = self.registry.by_checksum(checksum) or self.registry.find(lexicon_id)
            if other is not None and other.language == served.language:
                raise Problem(
                    "lookups-closed",
                    "lookups are closed during rounds: a round is being played in another event judging "
                    "in the same language; ask a judge, or check words after the round",
                )

    def refusal(self, problem: Problem) -> Problem:
        """The answer to a refusal (service.challenge_hook.EventHook; the app's error handlers
        ask for every one, an edited stored value's and the 500 too): to a request whose device
        came from the cache and was not checked by the store since, the device read from the store
        first (`confirm`), and its 401 when it was revoked or paired again; `problem` otherwise.
        Not to keep a secret (whether a round is open and the event's lexicon are public anyway):
        so that a device revoked or paired again gets its 401, which makes its page unpair and
        delete its lexicon, at its very next request whatever would refuse it, as when every
        request read the store. A device read so that was edited into what no row holds (an empty
        name) gets that edit's refusal (409 `record-tampered`)."""
        if UNCHECKED not in asking():
            return problem
        try:
            self.confirm(asking()[UNCHECKED])
        except Problem as gone:
            return gone
        except (Unreadable, MalformedRow) as edited:  # the device as stored edited into what no row holds
            return self.unreadable(edited)
        return problem

    def confirm(self, caller: Caller) -> None:
        """A device from the cache (live_devices.py), not checked by the store since, read from
        the store now: its 401 raised when it was revoked or paired again (its entry dropped), as
        if it had been read so at the start; a device the store reads live is noted in touch (its
        contact) and kept."""
        if asking().pop(UNCHECKED, None) is not None:
            self.live.drop(caller.token_hash)
            self.live.add(caller.token_hash, self.stored_device(caller.token_hash))

    def allow(self, caller: Caller, name: str, served: Served, plays: int) -> None:
        """Once the lexicon asked for and the number of plays are known, before any play is read.

        The event's lexicon: every verdict the event records is judged with the one it pinned
        (`event init --lexicon`, by checksum: pin.py), whoever asks and by whatever route, a
        verdict given offline too; asking for another is refused (403 `event-lexicon`, naming
        the event's, and quoting the `name` asked for as it was sent, with the lexicon it names
        when that is another text: 'ca', which is disc-e8b6e1c), before any play is read, and nothing
        is recorded. So one play is never
        VALID at one table and NOT VALID at another, and a phone whose language buttons were
        tapped still judges with the event's list. An event made without one is pinned to the
        service's default lexicon at its first start (pin.py): every event has one list.

        A role's rate limit counts plays, not requests: a batch answers every play, so a device
        whose role has a gap gets one play per request (403 `one-play-per-gap`), and the record
        refuses its next row inside the gap (429 `rate-limited`) whatever the route. Otherwise a
        batch of a play and each of its words, one request, would name the word that failed.

        A caller without a device, or a lookup kiosk, sends at most UNNAMED_BATCH plays in one
        request (403 `batch-too-large`); its recorded plays a minute are LEXICON_RATE_PLAYS per
        client address (429 `plays-limited`, counted by the record).
        """
        role = caller.role
        event = self.event_served
        if event is not None and served.identity.checksum != event.identity.checksum:
            pinned = event.identity
            raise Problem(
                "event-lexicon",
                f"every verdict of this event is judged with its lexicon, {pinned.id} {pinned.version} "
                f"(checksum {pinned.checksum[:12]}…); not with {show_word(name)}"
                f"{'' if name == served.id else f', which is {served.id}'}: nothing is recorded",
                lexicon=pinned.id,
            )
        if role in UNNAMED_ROLES and plays > UNNAMED_BATCH:
            who = "a lookup device" if role else "a caller without a device"
            raise Problem(
                "batch-too-large",
                f"{who} sends at most {UNNAMED_BATCH} plays in one request, not {plays}: no verdict is given",
            )
        gap = self.settings.rate(role)
        if gap > 0 and plays > 1:
            raise Problem(
                "one-play-per-gap",
                f"this device gets one verdict every {gap:g} s, so it sends one "
                f"play at a time, not {plays} in one request: no verdict is given",
            )

    def second(self, caller: Caller, asked: bool) -> bool:
        """A table device never gets a second opinion: its page is the event's lexicon only, and
        a verdict from another lexicon beside it (with `lexicon diff` of the two lists) would point
        at the word that failed. Asked for: 403 `second-not-allowed`; given always: left out.

        Nor does a verdict given offline: its phone judged with the event's lexicon alone and
        showed that verdict alone, and the row's second opinion is the one the players were shown
        beside it. Left out, asked or not: the page's queued play keeps the `second` its play
        was made with, and a refusal would leave the verdict unrecorded on the phone."""
        if caller.offline:
            return False
        if caller.role != "table":
            return True
        if asked:
            raise Problem(
                "second-not-allowed",
                "a table device gets the verdict of the event's lexicon only, never a second opinion: leave out second",
                pointer="/second",
            )
        return False

    def record(
        self, caller: Caller, served: Served, notation: str, plays: Iterable[Judged], second: Served | None, sent
    ) -> list[Mark]:
        """Record every judged play (one row each, one transaction), durably, before any answer
        leaves; their numbers and rounds in order. The words are recorded as typed (trimmed) and
        in engine tiles made from the keys the verdict used: read once. A device answered by
        another file of the event gets none (witness.py): its last key is checked in the write.
        A device from the cache is read from the store before its split is noted (`confirm`)."""
        seen, last = said(sent)
        if self.witness.other(seen):
            self.confirm(caller)  # before the split is noted: never for a device revoked since
            raise self.witness.split(caller.device, seen, None)
        device = caller.device
        form = self.forms(device, served, notation, second)
        entries = []
        for index, (words, keys, valid, other, slip) in enumerate(plays):
            place = f"/plays/{index}" if isinstance(slip, Play) else ""
            entries.append(entry_of(device, form, words, keys, valid, other, slip, self.db.now, place))
        return [(row.seq, row.round) for row in self._append(entries, caller, seen, last)]

    def unready(self) -> str | None:
        """Not ready while the file at the event's path is not the one served (every write refuses),
        while the event's storage cannot be read (a database away: every write is 503), once its disk
        failed a write (every write and read refuses until a restart), nor once the event was moved
        elsewhere (every write is 410 `event-moved`).

        Said whole (the file's path, the store's own error) only to this computer's own browser or
        tool (service.proxies, `from_this_computer`), where the director or the operator mends it.
        Anyone may ask /readyz: a phone or a spectator on the hall's Wi-Fi, a front end's probe; they
        learn what is wrong, never where on the laptop (`NOT_HERE`)."""
        whole = self.from_this_computer()
        more = "" if whole else NOT_HERE
        failed = self.db.failed()
        if failed is not None:
            said = "the event's record failed (its disk, or its files changed under it): nothing is recorded"
            return failed if whole else f"{said} until a restart{more}"
        if self.db.replaced():
            where = f" at {self.settings.event}" if whole else ""
            return (
                f"the event file{where} is not the one this service opened (moved, deleted or replaced): no verdict "
                f"can be recorded; put it back, or `lexicon reload` to serve the file there now{more}"
            )
        try:
            moved = self.db.moved()  # one read of the event's row: its storage answers, or not
        except StorageError as error:
            why = f" ({error})" if whole else ""
            return (
                f"the event's record cannot be reached{why}: no verdict can be recorded until it answers "
                f"again, and this instance uses it again then, without a restart{more}"
            )
        if moved is not None:
            return (
                f"the event was moved at {moved[0]} (its live copy is now file {moved[1]}): nothing more is "
                "recorded here; serve the event where it was moved"
            )
        return None

    def identity(self) -> dict[str, str]:
        """What /readyz says of the event: the same on every instance of one event file."""
        pin = {} if self.pin is None else {"event_lexicon": self.pin.checksum}
        return {"event": self.event_id, "event_file": self.file, **pin}

    def _append(self, entries: list[Entry], caller: Caller, seen: str | None, last: str | None) -> list[Record]:
        """The rows, or the write's refusal. The write checks that the device holds the token it
        was read by, not revoked (`holder`): its refusal then is the 401 a read from the store
        would have given, and the device's entry leaves the cache. A device from the cache is
        noted in touch (its contact) once the write has checked it; a write that failed
        (StorageError) checked nothing, and its refusal reads the store first (`refusal`)."""
        device = caller.device
        holder = None if device is None else (device.id, caller.token_hash)
        try:
            limit = self.settings.rate_plays
            budget = self._budget(limit) if caller.role in UNNAMED_ROLES and limit > 0 else None
            records = self.db.append_many(
                entries, self.settings.rate(caller.role), caller.round_open, budget, last, holder
            )
        except DeviceGone as error:
            self.live.drop(caller.token_hash)
            asking().pop(UNCHECKED, None)  # the write checked it
            raise (revoked(device) if error.revoked else unknown_token()) from None
        except (LastKeyMissing, RoundRefused, PlaysLimited, RateLimited, IdempotencyConflict) as error:
            self._checked(caller)
            raise self._refused(error, caller, seen) from None
        except StorageError as error:
            raise storage_problem(error) from None
        self._checked(caller)
        return list(records)

    def _budget(self, limit: int) -> tuple[tuple[str, int], ...]:
        """The budgets a caller the record cannot name is charged: its address's, and its /64's."""
        return limit_keys(self.client(), limit, NETWORK_PLAYS * limit)

    def _checked(self, caller: Caller) -> None:
        """The write found the device live: one from the cache, not read from the store since
        (its mark in the environ: `confirm` takes it when it reads the store, which notes its
        contact itself), is noted in touch (its contact), once."""
        if asking().pop(UNCHECKED, None) is not None:
            self.contacts.seen(caller.device.id)

    def _refused(self, error: Exception, caller: Caller, seen: str | None) -> Problem:
        """What the record's rules refused, as the device is answered (the write checked the device)."""
        if isinstance(error, LastKeyMissing):  # another copy of the event's file recorded its last verdict
            return self.witness.split(caller.device, seen, error.key)
        if isinstance(error, RoundRefused):  # a round opened or closed while this waited for the write lock
            return round_refused(error.current)
        if isinstance(error, PlaysLimited):
            where = "network (/64)" if "/" in error.client else "address"  # a key of _budget
            return Problem.later(
                "plays-limited",
                f"this {where} has had {error.limit} plays recorded in the last minute, "
                f"as many as phones without a device and lookup devices may record from one {where} together: "
                f"ask again in {error.retry_after} s",
                error.retry_after,
            )
        if isinstance(error, RateLimited):
            return Problem.later(
                "rate-limited",
                f"this device may challenge once every "
                f"{self.settings.rate(caller.role):g} s: ask again in {error.retry_after} s",
                error.retry_after,
            )
        own = {} if error.seq is None else {"record": error.seq}  # IdempotencyConflict: its number only to its device
        return Problem("idempotency-conflict", str(error), **own)

    def unreadable(self, error: Unreadable | MalformedRow) -> Problem:
        """A stored value this service cannot read back (the event file edited by hand): a refusal
        that names where, never a value nor a word, logged as an error once per place (here, in
        this process: every request that meets it would otherwise log it again)."""
        where = error.where if isinstance(error, Unreadable) else f"record {error.seq}"
        if where not in self._unreadable:
            self._unreadable.add(where)
            log.error("the event file was edited by hand", extra={"fields": {"where": where}})
        if isinstance(error, TableMissing):  # what mends it is the console's, not `records verify`
            return Problem(
                "table-missing",
                f"device {error.device_id} is a table device with no table in the event file, and each of its "
                "rows must carry its table: nothing is judged or recorded for it; the director revokes it in "
                "the console (Devices) and adds a table device with its table, then pairs it with the new code",
            )
        return Problem(
            "record-tampered",
            f"the event file was edited by hand ({where} cannot be read back), so "
            "nothing that depends on it is judged or recorded; tell the director, who runs "
            "`lexicon records verify` on the event file",
        )

    # -- answers -----------------------------------------------------------------------------------

    def names(self) -> dict[int, str]:
        return {device.id: device.name for device in self.db.devices()}

    def held(self, device: Device, waiting: str | None) -> None:
        """A device's page says how many offline verdicts it holds (`waiting`, with its heartbeat,
        GET /v1/event; its contact itself is noted in contacts.py): 0 while a closed round waits
        for it settles that round's head (tournament/rounds.py), written at once."""
        if waiting is None:
            return
        if not (waiting.isascii() and waiting.isdigit() and len(waiting) < 10):
            raise Problem(
                "invalid-request",
                f"waiting is how many verdicts the page holds, a whole number, not {show_word(waiting)}",
                parameter="waiting",
            )
        try:
            if int(waiting) == 0 and device.id in self.db.awaited():
                self.db.synced(device.id)
        except StorageError as error:
            raise storage_problem(error) from None

    def counts(self, number: int | None) -> list[DeviceCount]:
        names = self.names()
        return [
            DeviceCount(device, names.get(device), count)
            for device, count in sorted(self.db.counts(number).items(), key=lambda item: item[0] or 0)
        ]

    def event_info(self, device: Device | None, director: bool, split: bool = False) -> EventInfo:
        current = self.db.current_round()
        served = self.event_served
        return EventInfo(
            self.name,
            None if current is None else current.number,
            None if served is None else served.identity,
            None if device is None else DeviceInfo.of(device),
            director,
            self.settings.rate(None if device is None else device.role),
            self.file,
            self.restored_from,
            split,
        )

"""Tournament mode over HTTP: the event opened for an app, what /readyz says of it, and the
answers the endpoints give from it (docs/tournament.md, "HTTP API").

`Tournament` is made once per app from the settings (`LEXICON_EVENT`). It is the challenge path's
event hook (service.challenge_hook.EventHook), each part in its module: who asks (the director, a
paired device, nobody) is callers.py; what a caller may ask at this moment, before a play is
judged (`admit`, `allow`, `second`), admission.py; the recording of every judged play before its
verdict leaves (`record`, `refusal`), recording.py; the row a judged play becomes, entries.py.
`service.event.routes.register` adds the director's and the devices' endpoints, each admitted here
(`director`, `device`). Everything it knows is in the event's store, shared by every worker
process: sessions, devices, rounds, the record, and the rate limits (read from the record inside
its write lock), so two workers behave as one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from lexicon.errors import show_word
from tournament import Device, StorageError, open_event

from ..config import Settings
from ..federation import Playing
from ..problems import Problem
from ..registry import Registry
from ..status_types import NOT_HERE, EventLimits
from .admission import Admission
from .api_types import DeviceCount, DeviceInfo, EventInfo
from .contacts import Contacts
from .entries import Forms
from .limits import WrongCodes
from .live_devices import LiveDevices
from .opening import REFUSALS, refuse_guard_holder, served, start_error
from .pin import pin_lexicon
from .recording import Recording
from .refusals import storage_problem
from .witness import Witness


class Tournament(Admission, Recording):
    """An event's rules over HTTP, bound to its store; one per app (per worker process)."""

    recorded = True  # every verdict is a row: a GET challenge is refused (service.api)

    def __init__(
        self,
        settings: Settings,
        registry: Registry,
        elsewhere: Callable[[], frozenset[Playing]] | None = None,
        wrong_codes: WrongCodes | None = None,
        remember: bool = False,
    ):
        """The event opened and its lexicon pinned; StartError, a sentence and not a traceback, when
        that cannot be: no event there, its lock held, its database not answering, the event moved.
        `elsewhere`: for an event in a database (served with all its events, or on its own), the
        lexicons (checksum, id and language) of its database's other events with a round open (see
        `admit`, service.federation.OtherRounds); None for an event file. `wrong_codes`: the event's wrong
        pairing codes in this process when they outlive this app (a service of every event closes
        an app to make room for others, limits.py); None: this app's own. `remember`: what this
        process verified of the record outlives this app too (tournament's open_event)."""
        self.elsewhere = elsewhere
        self.wrong_codes = WrongCodes() if wrong_codes is None else wrong_codes
        try:
            self.db = open_event(settings.event, synchronous=settings.event_sync.upper(), remember=remember)
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
        self.contacts = Contacts(self.db)  # each device's last request, noted in this worker (contacts.py)
        self.live = LiveDevices()  # devices by token hash, for a verdict to record: the write checks them
        self.forms = Forms()  # what a device's rows of one lexicon share, made once (entries.py)
        self.event_served = None if self.pin is None else registry.by_checksum(self.pin.checksum)
        if self.event_served is not None:
            registry.make_default(self.event_served)

    def unready(self) -> str | None:
        """Not ready while the file at the event's path is not the one served (every write refuses),
        while the event's storage cannot be read (a database away: every write is 503), once its disk
        failed a write (every write and read refuses until a restart) or its file was found damaged
        (until the director restores it from a backup), nor once the event was moved
        elsewhere (every write is 410 `event-moved`).

        Said whole (the file's path, the store's own error) only to this computer's own browser or
        tool (service.proxies, `from_this_computer`), where the director or the operator mends it.
        Anyone may ask /readyz: a phone or a spectator on the hall's Wi-Fi, a front end's probe; they
        learn what is wrong, never where on the laptop (`NOT_HERE`)."""
        whole = self.from_this_computer()
        more = "" if whole else NOT_HERE
        failed = self.db.failed()
        if failed is not None:
            said = "the event's record failed (its disk, or its files damaged or changed under it): nothing is recorded"
            return (
                failed if whole else f"{said} until the director restarts the service, or restores a damaged file{more}"
            )
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

    def identity(self) -> dict[str, object]:
        """What /readyz says of the event: the same on every instance of one event file, its limits
        too unless an instance was started with others."""
        pin = {} if self.pin is None else {"event_lexicon": self.pin.checksum}
        settings = self.settings
        limits = EventLimits(settings.rate_judge, settings.rate_table, settings.rate_lookup, settings.rate_plays)
        return {"event": self.event_id, "event_file": self.file, **pin, "event_limits": limits}

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

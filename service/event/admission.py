"""Who may ask what of an event at this moment, before a play is judged: a role's rules for the
round (`admit`), lookups closed while another event of the database plays in the same language,
the event's lexicon, a batch's size and a role's gap (`allow`), and the second opinion (`second`).

Apart from the recording (recording.py): these refuse before any play is read or any row is
written, and read at most the open round; Tournament (service.event.http) is both. The attributes
they use are Tournament's: `db`, `settings`, `registry`, `event_served` and `elsewhere`.
"""

from __future__ import annotations

from lexicon.errors import show_word
from tournament import StorageError

from ..problems import Problem
from ..registry import Served
from .callers import Caller, Callers, judges_offline
from .refusals import round_refused, storage_problem

# Callers the record cannot name (no device, or a lookup kiosk) are limited in what they can make
# it hold: a batch of at most this many plays (a kiosk checks one play at a time), and a budget of
# recorded plays a minute per client address (recording.py's NETWORK_PLAYS says how many from an
# IPv6 /64).
UNNAMED_ROLES = (None, "lookup")
UNNAMED_BATCH = 10
# When each role's online verdicts are answered: a lookup device and nobody only between rounds
# (False), a table device only during one (True); a judge (absent) at any time.
ROUND_RULES = {None: False, "lookup": False, "table": True}


class Admission(Callers):
    """The challenge hook's admissions (service.challenge_hook.EventHook): `admit`, `allow`, `second`."""

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
        service.federation.OtherRounds); the write checks this event's own round only.

        The other event's language is its pin's (tournament.Pin.language), so an event pinned to a
        list this service does not serve, nor knows by its id, closes them all the same. A pin kept
        before its language was (until an instance serving its list starts the event: pin.py) is
        known here by its list's checksum or id; when neither is served here, its language cannot
        be known, and its round closes the lookups of every language: lookups reopen when its round
        closes, where a player of that round looking words up could not be undone."""
        served = self.event_served
        if served is None:
            return
        try:
            playing = self.elsewhere()
        except StorageError as error:
            raise storage_problem(error) from None
        for other in playing:
            language = other.language or self.registry.language_of(other.checksum, other.lexicon_id)
            if language is None:
                raise Problem(
                    "lookups-closed",
                    "lookups are closed during rounds: a round is being played in another event, whose list's "
                    "language this service does not know; ask a judge, or check words after the round",
                )
            if language == served.language:
                raise Problem(
                    "lookups-closed",
                    "lookups are closed during rounds: a round is being played in another event judging "
                    "in the same language; ask a judge, or check words after the round",
                )

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

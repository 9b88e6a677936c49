"""The event's pin (tournament.Pin) in every store: kept with its list's language, which a round of
the event closes the lookups of on a service that does not know the list; never changed by another
list's pin; and, kept without its language (pinned before it was kept, or carried from a store of
then), given only that of the same bytes (keeper.pin_lexicon, at the event's start: service.event.pin)."""

from __future__ import annotations

from dataclasses import replace

from tournament import create_event, open_event

from ..conftest import PASSWORD, PINNED

ANOTHER = replace(PINNED, id="es-mini", checksum="cd" * 32, language="es")  # another list's pin


def test_a_pin_is_kept_with_its_list_s_language_and_another_list_s_changes_nothing(location, clock):
    db = create_event(location, "Open", PASSWORD, lexicon="ca-mini", pin=PINNED, clock=clock)
    try:
        assert db.event().pin == PINNED
        assert db.pin_lexicon(ANOTHER) == PINNED
    finally:
        db.close()
    again = open_event(location, readonly=True)
    try:
        assert again.event().pin == PINNED
    finally:
        again.close()


def test_an_event_pinned_at_its_first_start_keeps_its_list_s_language(db):
    started = replace(PINNED, by="start")
    assert db.event().pin is None
    assert db.pin_lexicon(started) == started == db.event().pin


def test_a_pin_kept_without_its_language_is_given_only_that_of_the_same_bytes(location, clock):
    old = replace(PINNED, language=None)
    db = create_event(location, "Open", PASSWORD, lexicon="ca-mini", pin=old, clock=clock)
    try:
        assert db.event().pin == old
        assert db.pin_lexicon(replace(ANOTHER, language="ca")) == old  # another list's: not its language
        # the same bytes as another instance pins them: their language, nothing else of that pin
        assert db.pin_lexicon(replace(PINNED, file=None, pinned="2026-11-23T09:00:00.000000Z", by="start")) == PINNED
        assert db.pin_lexicon(replace(PINNED, language="es")) == PINNED  # once known, kept
    finally:
        db.close()

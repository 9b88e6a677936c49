"""An event's own fields as it is created: its name fits a phone's first screen, in any store."""

from __future__ import annotations

import pytest

from tournament import TournamentError, create_event, open_event
from tournament.keeper import MAX_EVENT_NAME

from ..conftest import PASSWORD


@pytest.mark.parametrize(
    "name",
    ["", "   ", "Open\nde Lleida", "Open de Lleida\x00", "O" * (MAX_EVENT_NAME + 1), "Open " * 1000],
)
def test_a_name_that_could_never_be_shown_is_refused_quoting_it_and_nothing_is_created(store, name):
    location = store.location("event")
    with pytest.raises(ValueError, match=f"an event's name is 1 to {MAX_EVENT_NAME} printable characters") as refused:
        create_event(location, name, PASSWORD)
    assert len(str(refused.value)) < 300  # quoted, cut: a name of thousands of characters is not repeated whole
    with pytest.raises(TournamentError):
        open_event(location)


def test_the_longest_name_is_kept_as_given_without_its_outer_spaces(store):
    name = "Campionat de Catalunya de Scrabble en català per equips 2026".ljust(MAX_EVENT_NAME, "!")
    db = create_event(store.location("event"), f"  {name} ", PASSWORD)
    assert db.event().name == name
    db.close()

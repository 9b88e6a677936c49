"""The entry's own checks (entry.check_entry)."""

from __future__ import annotations

import sys

import pytest

from tournament import entry
from tournament.model import Device


def test_white_space_in_a_word_is_exactly_what_str_isspace_calls_white_space():
    """check_entry finds white space with one regular expression: the same characters as isspace."""
    differ = [c for c in range(sys.maxunicode + 1) if bool(entry._SPACE.search(chr(c))) != chr(c).isspace()]
    assert differ == []


JUDGE = Device(4, "Juez 4", "judge", None, "2026-05-01T10:00:00Z", "2026-05-01T10:00:00Z", None)
TABLE = Device(7, "Mesa 7", "table", "7", "2026-05-01T10:00:00Z", "2026-05-01T10:00:00Z", None)
LEXICON = dict(lexicon_id="disc-ca", lexicon_version="2.9", lexicon_checksum="5f" * 32, notation="spelling")
SECOND = dict(second_lexicon_id="file2017", second_lexicon_version="2017.1", second_lexicon_checksum="cd" * 32)
PLAY = dict(words=("COL·LEGI", "QUADRE"), tiles=("COL·LEGI", "QUADRE"), valid=True, idempotency_key="k1")
OFFLINE = dict(offline=True, device_time="2026-05-01T10:31:07.120034Z", shown_round=3)


@pytest.mark.parametrize(
    "device, shared, own",
    [
        (None, {}, {}),
        (JUDGE, {}, {}),
        (JUDGE, {}, {"table": "12", **OFFLINE}),
        (TABLE, SECOND, {"second_valid": False}),
        (TABLE, {}, {"idempotency_key": None, "valid": False}),
    ],
)
def test_an_entry_from_a_form_is_the_entry_made_whole(device, shared, own):
    """EntryForm (the recorded challenge's rows, a device's shared fields checked once): the same
    Entry as one made whole, equal, with the same hash and the same fields in the same order."""
    made = entry.EntryForm(device, **LEXICON, **shared)(**{**PLAY, **own, "words": list(PLAY["words"])})
    whole = entry.Entry.for_device(device, **LEXICON, **shared, **{**PLAY, **own})
    assert made == whole and hash(made) == hash(whole) and type(made) is entry.Entry
    assert list(vars(made).items()) == list(vars(whole).items())
    assert made.format == whole.format


@pytest.mark.parametrize(
    "own, message",
    [
        ({"words": ()}, "1 to 8 words"),
        ({"tiles": ("X",)}, "tile spellings"),
        ({"words": ("CA SA", "X")}, "without spaces"),
        ({"valid": 1}, "true or false"),
        ({"table": ""}, "never ''"),
        ({"idempotency_key": "\ud800"}, "not valid Unicode"),
        ({"device_time": "yesterday", "offline": True}, "not a UTC time"),
        ({"device_time": "\u0662\u0660\u0662\u0666-05-01T10:31:07.120034Z", "offline": True}, "not a UTC time"),
        ({"shown_round": 3}, "shown_round is the round"),
        ({"second_valid": True}, "all four or none"),
    ],
)
def test_a_form_refuses_each_entry_an_entry_made_whole_refuses(own, message):
    """An entry's own fields are checked at each entry of a form, by check_entry's rules."""
    with pytest.raises(ValueError, match=message):
        entry.Entry.for_device(JUDGE, **LEXICON, **{**PLAY, **own})
    with pytest.raises(ValueError, match=message):
        entry.EntryForm(JUDGE, **LEXICON)(**{**PLAY, **own})


@pytest.mark.parametrize(
    "device, shared, message",
    [
        (JUDGE, {"notation": "braille"}, "notation"),
        (JUDGE, {"lexicon_version": ""}, "never ''"),
        (Device(4, "\ud800", "judge", None, "", "", None), {}, "not valid Unicode"),
        (Device(4, "Juez", "director", None, "", "", None), {}, "role"),
        (JUDGE, {"second_lexicon_id": "file2017"}, "all four or none"),
    ],
)
def test_a_form_refuses_shared_fields_an_entry_made_whole_refuses(device, shared, message):
    """The fields a form's entries share are checked when it is made (the second opinion's all
    four or none: at its first entry, with the verdict of its own)."""
    with pytest.raises(ValueError, match=message):
        entry.Entry.for_device(device, **{**LEXICON, **shared}, **PLAY)
    with pytest.raises(ValueError, match=message):
        entry.EntryForm(device, **{**LEXICON, **shared})(**PLAY)

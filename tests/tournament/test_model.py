"""The entry's own checks (model.check_entry)."""

from __future__ import annotations

import sys

from tournament import model


def test_white_space_in_a_word_is_exactly_what_str_isspace_calls_white_space():
    """check_entry finds white space with one regular expression: the same characters as isspace."""
    differ = [c for c in range(sys.maxunicode + 1) if bool(model._SPACE.search(chr(c))) != chr(c).isspace()]
    assert differ == []

"""What an export says it holds: the filter it was asked for (a round, a table, a device, or
none of them: the whole record), written into the export by whoever made it (the service or
`lexicon records export`), so that checking it knows what it should hold.

Why: rows alone cannot tell a table's export, with the other tables' rows not in it, from the
whole record's with rows deleted. An export that says it is the whole record and has a gap has
rows deleted (export_check: exit 1 at `lexicon records verify`), where one that says nothing can
only be taken as filtered.

No secret signs it: the export is checked on any computer, and whoever holds the laptop (the
director, docs/tournament.md) could edit the filter as easily as the rows. So the filter is what
the export *says*, and is checked as a claim: every row must be of it (a whole export with rows
deleted and its filter edited to a table breaks at its first row of another table), and verify
says it first, so that an appeal that asked for the whole record sees "of round 2 only". An
export made before exports said their filter, or with its filter removed, says none (None), and
is checked as it was.

In JSON the member `filter`, `{"round": N, "table": TEXT, "device": N}` (null: any); in CSV the
column `filter`, the same object as compact JSON in every row (cells that differ are an edit).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .entry import Record
from .errors import shown

FILTER = "filter"  # the CSV column and the JSON member
_FIELDS = ("round", "table", "device")


@dataclass(frozen=True)
class ExportFilter:
    """The rows an export was asked for: of this round, table and device (None: any)."""

    round: int | None = None
    table: str | None = None
    device: int | None = None

    @property
    def whole(self) -> bool:
        """Asked for every row: the whole record."""
        return (self.round, self.table, self.device) == (None, None, None)

    def misfit(self, record: Record) -> str | None:
        """How the row is not of this filter (`table '2'`, `no device`), or None when it is."""
        values = {"round": record.round, "table": record.entry.table, "device": record.entry.device_id}
        wrong = {name: values[name] for name in _FIELDS if getattr(self, name) not in (None, values[name])}
        return _said(wrong) if wrong else None

    def as_json(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in _FIELDS}

    def cell(self) -> str:
        """The CSV cell: compact JSON, in the members' order.

        >>> ExportFilter(round=3, table="12").cell()
        '{"round":3,"table":"12","device":null}'
        """
        return json.dumps(self.as_json(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def of(cls, value: object) -> ExportFilter:
        """From the JSON member or the CSV cell's object; ValueError saying what is wrong."""
        if not isinstance(value, dict) or set(value) != set(_FIELDS):
            raise ValueError(f"its filter is {shown(value)}, not an object of {', '.join(_FIELDS)}")
        for name in ("round", "device"):
            number = value[name]
            if number is not None and (type(number) is not int or number < 1):
                raise ValueError(f"its filter's {name} is {shown(number)}, not a number from 1 or null")
        if value["table"] is not None and (not isinstance(value["table"], str) or not value["table"]):
            raise ValueError(f"its filter's table is {shown(value['table'])}, not a text or null")
        return cls(value["round"], value["table"], value["device"])

    @classmethod
    def parse(cls, cell: str) -> ExportFilter:
        try:
            return cls.of(json.loads(cell))
        except (json.JSONDecodeError, RecursionError):
            raise ValueError(f"its filter is {shown(cell)}, not JSON") from None

    def __str__(self) -> str:
        """`the whole record`, `round 3`, `round 3, table '12' and device 4`."""
        return "the whole record" if self.whole else _said({k: v for k, v in self.as_json().items() if v is not None})


def _said(values: dict[str, object]) -> str:
    """`round 3 and table '12'`, `no device`: the fields given, in words."""
    return listed([f"no {name}" if value is None else f"{name} {value!r}" for name, value in values.items()])


def listed(words: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`: the export's messages' lists (export_check's gaps too)."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]

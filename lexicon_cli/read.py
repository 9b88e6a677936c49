"""`lexicon check`, `dump` and `info`: verdicts and what a compiled lexicon holds."""

from __future__ import annotations

import json
import sys

import click

from lexicon.errors import InputError
from lexicon.verdict import Identity, judge

from .common import NOTATIONS, BadInput, open_lexicon


@click.command()
@click.argument("lexicon_name", metavar="LEXICON")
@click.argument("words", nargs=-1, required=True)
@click.option("--notation", type=NOTATIONS, default="spelling", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
def check(lexicon_name, words, notation, as_json):
    """One joint verdict for all WORDS of a play: VALID or NOT VALID."""
    lexicon = open_lexicon(lexicon_name)
    try:
        valid = judge(lexicon, words, notation)
    except InputError as error:
        where = f"word {error.index}: " if error.index and len(words) > 1 else ""
        raise BadInput(f"{where}{error}") from None
    if as_json:
        identity = Identity.of(lexicon)
        click.echo(json.dumps({"valid": valid, "lexicon": identity.__dict__}, ensure_ascii=False))
    else:
        click.echo("VALID" if valid else "NOT VALID")


@click.command()
@click.argument("lexicon_name", metavar="LEXICON")
def dump(lexicon_name):
    """Every word in engine tile notation (CA[RR]O, COL·LEGI), one a line, in tile order."""
    lexicon = open_lexicon(lexicon_name)
    out = sys.stdout.buffer
    try:
        for chunk in lexicon.dump():
            out.write(chunk.encode("utf-8"))
        out.flush()
    except BrokenPipeError:  # `lexicon dump es | head` is a normal thing to do
        sys.stderr.close()


@click.command()
@click.argument("lexicon_name", metavar="LEXICON")
@click.option("--json", "as_json", is_flag=True, help="Print the header as JSON.")
@click.option("--verify", is_flag=True, help="Also recompute the words checksum from the trie.")
def info(lexicon_name, as_json, verify):
    """The header of a compiled lexicon: what list, which version, how many words, checksums."""
    lexicon = open_lexicon(lexicon_name)
    details = lexicon.info()
    if verify:
        details["words_verified"] = lexicon.verify_words()
    if as_json:
        click.echo(json.dumps(details, ensure_ascii=False, indent=1))
    else:
        for key, value in details.items():
            if key == "tiles":
                value = " ".join(value)
            elif isinstance(value, dict):
                value = ", ".join(f"{k}={v}" for k, v in value.items())
            click.echo(f"{key + ':':<14}{value if value is not None else '-'}")
    if verify and not details["words_verified"]:
        raise BadInput("the words do not match the checksum in the header")

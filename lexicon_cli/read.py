"""`lexicon check`, `dump` and `info`: verdicts and what a compiled lexicon holds."""

from __future__ import annotations

import json
import sys

import click

from lexicon.errors import InputError
from lexicon.verdict import Identity, lookup_all, play_keys

from .common import LEXICON_HELP, NOTATIONS, BadInput, exit_codes, open_lexicon


@click.command(
    help=f"""One joint verdict for all WORDS of a play: VALID or NOT VALID, never which word.

{LEXICON_HELP}

With --json, the verdict is one JSON object, and so is an error: {{"error": "..."}} (exit code 2
all the same; a word's error also gives "word", its place in the play).

With --second, a second opinion: the joint verdict of another lexicon of the same language on
the same words, on a line of its own after the verdict (in JSON, "second"). It never changes
the first line, and never says which word either.

{exit_codes("done, VALID or NOT VALID", "a word that is no tiles")}"""
)
@click.argument("lexicon_name", metavar="LEXICON")
@click.argument("words", nargs=-1, required=True)
@click.option(
    "--notation",
    type=NOTATIONS,
    default="spelling",
    show_default=True,
    help="How WORDS write tiles: natural spelling (CARRO, COL·LEGI), or engine tile notation (CA[RR]O, CA3O, COWEGI).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict, or the error, as JSON.")
@click.option(
    "--second",
    "second_name",
    metavar="LEXICON",
    help="Also give the verdict of this lexicon of the same language (a second opinion).",
)
def check(lexicon_name, words, notation, as_json, second_name):
    error: dict = {}
    second = second_valid = None
    try:
        for index, word in enumerate(words, 1):
            if any("\udc80" <= char <= "\udcff" for char in word):  # bytes Python could not decode
                error = {"word": index} if len(words) > 1 else {}
                which = f"word {index}" if len(words) > 1 else "the word"
                raise BadInput(
                    f"{which} is not valid UTF-8 text: check the encoding of the terminal or "
                    "script that typed it (it should be UTF-8)"
                )
        lexicon = open_lexicon(lexicon_name)
        if second_name is not None:
            second = open_lexicon(second_name)
            if second.header.language != lexicon.header.language:
                raise BadInput(
                    f"--second {second_name}: {second.header.id!r} is a lexicon of language "
                    f"{second.header.language!r}, and {lexicon.header.id!r} of "
                    f"{lexicon.header.language!r}: a second opinion is of the same language"
                )
        try:
            keys = play_keys(lexicon, words, notation)  # one reading of the words for both lexicons
        except InputError as problem:
            several = problem.index and len(words) > 1
            error = {"word": problem.index} if several else {}
            raise BadInput(f"word {problem.index}: {problem}" if several else str(problem)) from None
        valid = lookup_all(lexicon, keys)
        if second is not None:
            second_valid = lookup_all(second, keys)
    except BadInput as bad:
        if not as_json:
            raise
        click.echo(json.dumps({"error": bad.message, **error}, ensure_ascii=False))
        click.get_current_context().exit(bad.exit_code)
    if as_json:
        answer = {"valid": valid, "lexicon": Identity.of(lexicon).__dict__}
        if second is not None:
            answer["second"] = {"valid": second_valid, "lexicon": Identity.of(second).__dict__}
        click.echo(json.dumps(answer, ensure_ascii=False))
    else:
        click.echo("VALID" if valid else "NOT VALID")
        if second is not None:
            click.echo(f"second ({second.header.id}): {'VALID' if second_valid else 'NOT VALID'}")


@click.command(
    help=f"""Every word in engine tile notation (CA[RR]O, COL·LEGI), one a line, in tile order.

{LEXICON_HELP}

{exit_codes("done")}"""
)
@click.argument("lexicon_name", metavar="LEXICON")
def dump(lexicon_name):
    lexicon = open_lexicon(lexicon_name)
    out = sys.stdout.buffer
    try:
        for chunk in lexicon.dump():
            out.write(chunk.encode("utf-8"))
        out.flush()
    except BrokenPipeError:  # `lexicon dump es | head` is a normal thing to do
        sys.stderr.close()


@click.command(
    help=f"""The header of a compiled lexicon: what list, which version, how many words, checksums.

{LEXICON_HELP}

{exit_codes("done", "words that do not match their checksum, with --verify")}"""
)
@click.argument("lexicon_name", metavar="LEXICON")
@click.option("--json", "as_json", is_flag=True, help="Print the header as JSON.")
@click.option(
    "--verify", is_flag=True, help="Also recompute the words checksum from the trie (words_verified: yes or no)."
)
def info(lexicon_name, as_json, verify):
    lexicon = open_lexicon(lexicon_name)
    details = lexicon.info()
    words = lexicon.dump_sha256() if verify else None
    if verify:
        details["words_verified"] = words == lexicon.header.words_sha256
    if as_json:
        click.echo(json.dumps(details, ensure_ascii=False, indent=1))
    else:
        width = max(14, max(len(key) for key in details) + 2)
        for key, value in details.items():
            if key == "tiles":
                value = " ".join(value)
            elif isinstance(value, dict):
                value = ", ".join(f"{k}={v}" for k, v in value.items())
            elif isinstance(value, bool):
                value = "yes" if value else "no"
            click.echo(f"{key + ':':<{width}}{value if value is not None else '-'}")
    if verify and not details["words_verified"]:
        raise BadInput(
            f"{lexicon.source}: the words are not those of its header: words_sha256 "
            f"{lexicon.header.words_sha256}, and its words give {words}"
        )

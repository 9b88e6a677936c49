"""`python -m lexicon_cli`: the same as the `lexicon` command."""

from lexicon_cli import main

main(prog_name="lexicon")

"""Lexicon Judge core: tile alphabets, tokenizer, compiled lexicon files and verdicts."""

"""Lexicon Judge core: tile alphabets, tokenizer, compiled lexicon files and verdicts.

Pure and small on purpose: no Flask, no click, no file layout beyond "open this path".

    >>> from lexicon import Lexicon, LexiconMeta, compile_lexicon, judge, load_alphabet, tokenizer
    >>> keys = sorted(tokenizer('es').key(w) for w in ['carro', 'chico'])
    >>> data = compile_lexicon(keys, LexiconMeta('mini', 'es', 'Mini', '1'), load_alphabet('es'))
    >>> judge(Lexicon.from_bytes(data), ['CARRO', 'CHICO']), judge(Lexicon.from_bytes(data), ['CARO'])
    (True, False)
"""

from .alphabet import Alphabet, load_alphabet
from .errors import InputError, LexiconError, LexiconFileError
from .lexfile import Lexicon, LexiconMeta, compile_lexicon
from .tokenizer import Tokenizer, tokenizer
from .verdict import Identity, judge

__all__ = [
    "Alphabet",
    "Identity",
    "InputError",
    "Lexicon",
    "LexiconError",
    "LexiconFileError",
    "LexiconMeta",
    "Tokenizer",
    "compile_lexicon",
    "judge",
    "load_alphabet",
    "tokenizer",
]

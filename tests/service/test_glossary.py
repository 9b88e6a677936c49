"""One word a language for each thing, on every page a judge or the director reads: every text of
service/texts/** (the judge's page, its event and offline parts, the director's console, the
installed app and the single-file judge). A judge who reads "sin conexión" on one line and "sin
red" on the next asks whether they are two states; the words are the ones a Spanish or Catalan
Scrabble judge uses (papeleta / papereta, léxico / lèxic).

GLOSSARY: each thing's word in each language, which some text must use, and the words that must
not stand for it: each a regular expression matched as whole words in any case, plural too. A
forbidden word kept in another sense goes in ALLOWED, phrase by phrase.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import service
from service.page_texts import read_texts

TEXTS = Path(service.__file__).parent / "texts"

GLOSSARY = {  # thing: {language: (its word, what must not stand for it)}
    "offline": {  # "la red" / "la xarxa" is the venue's network itself, and stays
        "es": ("sin conexión", ["sin red", "fuera de línea", "desconectad[oa]"]),
        "ca": ("sense connexió", ["sense xarxa", "fora de línia", "desconnectat|desconnectada"]),
    },
    "the lexicon": {
        "es": ("léxico", ["lista", "diccionario", "vocabulario"]),
        "ca": ("lèxic", ["llista", "diccionari", "vocabulari"]),
    },
    "the phone in a hand": {"es": ("teléfono", ["móvil", "celular", "smartphone"]), "ca": ("telèfon", ["mòbil"])},
    "a paired device (any role)": {
        "es": ("dispositivo", ["aparato", "terminal"]),
        "ca": ("dispositiu", ["aparell", "terminal"]),
    },
    "the slip": {"es": ("papeleta", ["boleta", "formulario"]), "ca": ("papereta", ["butlleta", "formulari"])},
    "the verdict": {
        "es": ("veredicto", ["fallo", "dictamen", "resultado"]),
        "ca": ("veredicte", ["dictamen", "resultat"]),
    },
    "a challenge": {
        "es": ("impugnación", ["reclamación", "desafío", "protesta"]),
        "ca": ("impugnació", ["reclamació", "desafiament", "protesta"]),
    },
    "the round": {"es": ("ronda", ["vuelta"]), "ca": ("ronda", ["volta"])},
    "the table": {"es": ("mesa", []), "ca": ("taula", [])},
    "the judge": {"es": ("juez", ["árbitro"]), "ca": ("jutge", ["àrbitre"])},
    "the tournament": {
        "es": ("torneo", ["evento", "campeonato", "competición"]),
        "ca": ("torneig", ["esdeveniment", "campionat", "competició"]),
    },
    "the director": {
        "es": ("dirección del torneo", ["organización", "organizador"]),
        "ca": ("direcció del torneig", ["organització", "organitzador"]),
    },
    # In Spanish "dirección" is both the director and an address: alone it is neither, so it is
    # always "dirección del torneo" (the director) or "dirección web" (where a phone goes); Catalan
    # has two words (direcció / adreça).
    'a web address (and the director: never a bare "dirección")': {
        "es": ("dirección web", [r"dirección(?! del torneo| web)", "url"]),
        "ca": ("adreça", ["direcció web", "url"]),
    },
    # A device is linked to the event; "emparejamiento" / "aparellament" is what a Scrabble director
    # calls the pairings of players, round by round.
    "linking a device to the event": {
        "es": ("vincular", [r"emparej\w*"]),
        "ca": ("vincular", [r"aparella\w*"]),
    },
    # A word's input field: "casilla" / "casella" is a square of the board to a Scrabble player.
    "a word's field on the page": {"es": ("campo", ["casilla"]), "ca": ("camp", [r"casell(a|es)"])},
    "the service": {"es": ("servicio", ["servidor"]), "ca": ("servei", ["servidor"])},
    "checking (a play, the record)": {"es": ("comprobar", [r"verific\w*"]), "ca": ("comprovar", [r"verific\w*"])},
}
ALLOWED = {"es": ["lista de dispositivos"], "ca": ["llista de dispositius"]}  # a list of things is a list

# What the review found in the texts before this glossary: each must be caught.
FOUND_BEFORE = {
    "es": [
        "Juzga sin red",
        "El servicio juzga ya con otra lista",
        "escanea el código QR con el móvil",
        "Dirección:",
        "Los teléfonos no pueden llegar a esta dirección",
        "pide otro a la dirección.",
        "Código de emparejamiento",
        "Mesa 12 emparejado",
        "casilla vacía",
    ],
    "ca": [
        "Jutja sense xarxa",
        "El servei ja jutja amb una altra llista",
        "Els mòbils no poden arribar",
        "Codi d'aparellament",
        "sense aparellar",
        "casella buida",
    ],
}


def clashes(language: str, text: str) -> list[str]:
    """Each thing `text` calls by another word than the glossary's."""
    for phrase in ALLOWED[language]:
        text = re.sub(re.escape(phrase), "", text, flags=re.IGNORECASE)
    return [
        f"{match.group(0)!r} for {thing} (say {words[language][0]!r})"
        for thing, words in GLOSSARY.items()
        for other in words[language][1]
        for match in re.finditer(rf"\b(?:{other})(?:e?s)?\b", text, re.IGNORECASE)
    ]


def every_text() -> list[tuple[str, str, str, str]]:
    """(file, language, key, text) of every text of service/texts/**, a folder's languages at a time."""
    return [
        ((folder / f"{language}.toml").relative_to(TEXTS).as_posix(), language, key, text)
        for folder in sorted({path.parent for path in TEXTS.rglob("*.toml")})
        for language, texts in read_texts(folder).items()
        for key, text in texts.items()
    ]


def test_every_text_calls_each_thing_by_its_one_word():
    texts = every_text()
    assert {language for _, language, _, _ in texts} == set(ALLOWED)  # a new language needs its column
    found = [
        f"{file} {key}: {clash} in {text!r}" for file, language, key, text in texts for clash in clashes(language, text)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("language", sorted(ALLOWED))
def test_each_thing_s_word_is_one_the_texts_use(language):
    """A glossary that names a word no text uses has the wrong word (or a stale thing)."""
    said = " ".join(text for _, lang, _, text in every_text() if lang == language)
    words = [words[language][0] for words in GLOSSARY.values()]
    assert not [word for word in words if not re.search(rf"\b{word}", said, re.IGNORECASE)]


@pytest.mark.parametrize("language, text", [(lang, text) for lang, texts in FOUND_BEFORE.items() for text in texts])
def test_the_clashes_once_found_are_caught(language, text):
    assert clashes(language, text)
    assert not clashes(language, f"la {ALLOWED[language][0]}")  # the other sense, kept


DIRECTOR = {"es": "dirección del torneo", "ca": "direcció del torneig"}
CALL_JUDGE = {"es": "llama a un juez", "ca": "crida un jutge"}
AGAIN = {"es": r"vuelve a intentarlo|inténtalo de nuevo", "ca": r"torna-ho a provar|prova-ho de nou"}
# The refusals a phone can get that asking again does not mend: only the director can (restart the
# service on a disk that failed, read an edited file, start it with the event's lexicon, give a new
# address or a new code), so the page says whom to tell, never to try again.
LASTING = (
    "record-failed",
    "record-damaged",
    "record-tampered",
    "event-lexicon-missing",
    "event-file-split",
    "event-moved",
    "table-missing",
)


@pytest.mark.parametrize("language", sorted(DIRECTOR))
def test_a_refusal_asking_again_cannot_mend_says_whom_to_tell_never_to_try_again(language):
    texts = read_texts(TEXTS / "problems")[language]
    for kind in LASTING:
        text = texts[f"problem.{kind}"]
        assert DIRECTOR[language] in text and not re.search(AGAIN[language], text, re.IGNORECASE), (kind, text)
    # Shown only where the phone cannot judge on its own (a 5xx is judged offline where it can): a
    # table's device, whose players call a judge, as its own offline line says.
    failed = texts["problem.record-failed"]
    assert CALL_JUDGE[language] in failed and GLOSSARY["offline"][language][0] not in failed, failed
    # Only a table's device meets it: its players call a judge; the director mends it in the console
    no_table = texts["problem.table-missing"]
    assert CALL_JUDGE[language] in no_table.lower() and "consola" in no_table, no_table
    moment = texts["problem.record-unavailable"]  # a moment (a busy file, a database away), unless it goes on
    assert re.search(AGAIN[language], moment) and DIRECTOR[language] in moment, moment

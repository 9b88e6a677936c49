"""The judge's page at `/`: a phone-first challenge screen served by the service itself (issue 5).

One HTML document and three static files (`static/`: judge.css, tiles.js, judge.js), written by
hand, no build step, nothing fetched from anywhere but this service. Everything the page needs
is rendered into the HTML when the app starts, so a judge's phone on a poor venue Wi-Fi needs
one HTML load (revalidated, 304 when nothing changed) and three cached files, and then exactly
one request a verdict (POST /v1/challenge):

- the loaded lexicons (id, name, language, version, short checksum, whether it is its language's
  default),
  from the same registry that answers the verdicts;
- each of their languages' alphabet data (tiles, spellings, folding, hints), from
  `lexicon/alphabets/*.toml` through `lexicon.alphabet`, for the live tile preview; `tiles.js`
  reads words with exactly the rules of `lexicon.tokenizer`, and the Unicode facts Python uses
  (which characters are combining marks, which are white space) come along, so both agree;
- the interface texts in Spanish and Catalan (`TEXTS`);
- how long a verdict stays on screen, LEXICON_VERDICT_SECONDS (default 15), and whether the
  service wants the venue token (never the token itself: the page is served without one).

    LEXICON_VERDICT_SECONDS   seconds a verdict stays on the judge's page before it clears
                              itself (a tap or a key clears it sooner); 1 to 600, default 15.

Like every LEXICON_* setting it comes from the environment, then from `create_app`'s test config.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import unicodedata
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from flask import Blueprint, Flask, Response, abort, current_app, request

from lexicon.alphabet import load_alphabet
from lexicon.board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS

from .config import SettingsError

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
ASSETS = ("judge.css", "tiles.js", "judge.js")  # everything the page loads besides itself
TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}

DEFAULT_VERDICT_SECONDS = 15.0
VERDICT_SECONDS_RANGE = (1.0, 600.0)

# Nothing but this service: no CDN, no font, no frame, no form posted elsewhere.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")

blueprint = Blueprint("page", __name__)


# -- the setting ---------------------------------------------------------------------------------


def verdict_seconds(test_config: Mapping[str, Any] | None = None,
                    environ: Mapping[str, str] | None = None) -> float:
    """LEXICON_VERDICT_SECONDS: the default, then the environment, then the test config.

    >>> verdict_seconds({}, {})
    15.0
    >>> verdict_seconds({"LEXICON_VERDICT_SECONDS": "4"}, {"LEXICON_VERDICT_SECONDS": "30"})
    4.0
    """
    environ = os.environ if environ is None else environ
    value: Any = DEFAULT_VERDICT_SECONDS
    if environ.get("LEXICON_VERDICT_SECONDS", "").strip():
        value = environ["LEXICON_VERDICT_SECONDS"]
    if test_config and test_config.get("LEXICON_VERDICT_SECONDS") is not None:
        value = test_config["LEXICON_VERDICT_SECONDS"]
    low, high = VERDICT_SECONDS_RANGE
    try:
        seconds = float(str(value).strip())
    except ValueError:
        seconds = math.nan
    if not low <= seconds <= high:  # NaN fails too
        raise SettingsError(f"LEXICON_VERDICT_SECONDS: {value!r} is not a number of seconds "
                            f"from {low:g} to {high:g}")
    return seconds


# -- what the page embeds ------------------------------------------------------------------------


def _ranges(codepoints) -> str:
    """Code points as compact hexadecimal ranges: '300-36f,483-487,...'."""
    spans: list[list[int]] = []
    for cp in codepoints:
        if spans and spans[-1][1] == cp - 1:
            spans[-1][1] = cp
        else:
            spans.append([cp, cp])
    return ",".join(f"{a:x}" if a == b else f"{a:x}-{b:x}" for a, b in spans)


@cache
def unicode_facts() -> dict[str, str]:
    """The Unicode facts of Python's tokenizer that JavaScript has no API for.

    `combining`: the characters `unicodedata.combining` calls combining (what spelling notation
    drops after NFD); `space`: what `str.isspace` calls white space (what `str.strip` removes).
    """
    chars = range(SCANNED)  # a tenth of the code points, a tenth of the start-up time
    return {
        "unicode": unicodedata.unidata_version,
        "combining": _ranges(cp for cp in chars if unicodedata.combining(chr(cp))),
        "space": _ranges(cp for cp in chars if chr(cp).isspace()),
    }


# Every combining mark and every white-space character is in the first two planes (tests check
# all of Unicode, so a future Unicode that breaks this fails a test, not a judge).
SCANNED = 0x20000


def alphabet_data(language: str) -> dict[str, Any]:
    """One language's spelling notation, as `tiles.js` reads it: the data of `LANG.toml`."""
    alphabet = load_alphabet(language)
    notation = alphabet.notation("spelling")
    spellings = dict(notation.spellings)
    keys = []  # the on-screen tile keys: multi-letter tiles, then the letters with a diacritic
    for tile in [t for t in alphabet.tiles if len(t) > 1] + sorted(alphabet.distinct):
        bracketed = f"[{tile}]"
        keys.append({"tile": tile,
                     "text": tile if spellings.get(tile) == tile else
                     next(s for s, t in spellings.items() if t == tile),
                     "bracketed": bracketed if spellings.get(bracketed) == tile else None})
    return {
        "language": alphabet.language,
        "name": alphabet.name,
        "spellings": spellings,
        "foldDiacritics": notation.fold_diacritics,
        "distinct": sorted(alphabet.distinct),
        "equivalents": dict(alphabet.equivalents),
        "hints": dict(alphabet.hints),
        "notationHints": dict(notation.hints),
        # translated reasons, by interface language: notation's first, as the tokenizer looks
        "hintsIn": {ui: {**alphabet.hints_in.get(ui, {}), **notation.hints_in.get(ui, {})}
                    for ui in {*alphabet.hints_in, *notation.hints_in}},
        "keys": keys,
    }


def page_data(app: Flask, seconds: float) -> dict[str, Any]:
    registry = app.extensions["lexicon_registry"]
    settings = app.extensions["lexicon_settings"]
    lexicons = [{
        "id": item.id,
        "name": item.lexicon.header.name,
        "language": item.language,
        "version": item.lexicon.header.version,
        "short": item.lexicon.checksum[:8],  # the verdict shows the answer's own checksum
        "default": item.default,
    } for item in registry.served]
    languages = sorted({item["language"] for item in lexicons})
    return {
        "lexicons": lexicons,
        "alphabets": {language: alphabet_data(language) for language in languages},
        "unicode": unicode_facts(),
        "limits": {"minTiles": MIN_TILES, "maxTiles": MAX_TILES,
                   "minWords": MIN_WORDS, "maxWords": MAX_WORDS},
        "verdictSeconds": seconds,
        "tokenRequired": settings.token is not None,
        "challenge": "v1/challenge",  # relative: the page works behind a path prefix too
        "texts": TEXTS,
    }


def _script_json(value: Any) -> str:
    """JSON safe inside <script type="application/json">: no '<', '>' or '&' as such."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# -- the interface texts: Spanish and Catalan ----------------------------------------------------
# `{name}` placeholders are filled in by judge.js. A verdict's words are the rules' own.

TEXTS: dict[str, dict[str, str]] = {
    "es": {
        "title": "Impugnaciones · Lexicon Judge",
        "heading": "Comprobar jugada",
        "language": "Idioma de la pantalla",
        "lexicon": "Léxico",
        "lexiconDetails": "{language} · versión {version} · suma {short}",
        "default": "predeterminado",
        "lang.es": "español",
        "lang.ca": "catalán",
        "words": "Palabras de la jugada",
        "word": "Palabra {n}",
        "remove": "Quitar la palabra {n}",
        "add": "Añadir palabra",
        "keys": "Fichas especiales",
        "keysHelp": "Cada tecla pone la ficha donde está el cursor.",
        "tiles": "{n} fichas",
        "tile": "1 ficha",
        "slip": "Papeleta (opcional)",
        "table": "Mesa",
        "round": "Ronda",
        "submit": "Comprobar",
        "checking": "Comprobando…",
        "valid": "JUGADA VÁLIDA",
        "invalid": "JUGADA NO VÁLIDA",
        "slipResult": "Papeleta:",
        "yes": "SÍ",
        "no": "NO",
        "tableRound": "Mesa {table} · Ronda {round}",
        "tableOnly": "Mesa {table}",
        "roundOnly": "Ronda {round}",
        "verdictLexicon": "{name} · versión {version} · suma {short}",
        "clear": "Borrar",
        "clearHint": "Se borra en {n} s. Toca la pantalla o pulsa una tecla para borrar ya.",
        "at": "«{char}», posición {position}: {reason}",
        "why.letter": "el juego {set} no tiene ficha {letter}",
        "why.space": "un espacio no es una ficha: una palabra en cada casilla",
        "why.spelling": "ninguna ficha del juego {set} se escribe así",
        "why.other": "no es una letra del juego {set}",
        "set.es": "español",
        "set.ca": "catalán",
        "notTile": "«{char}», posición {position}: no es una ficha de este juego",
        "length": "una palabra tiene de {min} a {max} fichas; esta tiene {n}",
        "empty": "Escribe al menos una palabra.",
        "emptyWord": "casilla vacía",
        "offline": "Sin conexión con el servicio: comprueba la wifi y vuelve a intentarlo. No hay veredicto.",
        "timeout": "El servicio no responde: vuelve a intentarlo. No hay veredicto.",
        "failed": "El servicio ha fallado ({status}): vuelve a intentarlo. No hay veredicto.",
        "refused": "El servicio no acepta esta consulta: {detail}. No hay veredicto.",
        "unknownLexicon": "El servicio ya no tiene este léxico: recarga la página. No hay veredicto.",
        "tokenLabel": "Código del torneo",
        "tokenHelp": "Este servicio pide el código del torneo: pídelo a la dirección del torneo.",
        "tokenWrong": "El código no es válido: pídelo a la dirección del torneo. No hay veredicto.",
        "tokenSave": "Guardar código",
    },
    "ca": {
        "title": "Impugnacions · Lexicon Judge",
        "heading": "Comprovar jugada",
        "language": "Idioma de la pantalla",
        "lexicon": "Lèxic",
        "lexiconDetails": "{language} · versió {version} · suma {short}",
        "default": "predeterminat",
        "lang.es": "castellà",
        "lang.ca": "català",
        "words": "Paraules de la jugada",
        "word": "Paraula {n}",
        "remove": "Treure la paraula {n}",
        "add": "Afegir paraula",
        "keys": "Fitxes especials",
        "keysHelp": "Cada tecla posa la fitxa on és el cursor.",
        "tiles": "{n} fitxes",
        "tile": "1 fitxa",
        "slip": "Papereta (opcional)",
        "table": "Taula",
        "round": "Ronda",
        "submit": "Comprovar",
        "checking": "Comprovant…",
        "valid": "JUGADA VÀLIDA",
        "invalid": "JUGADA NO VÀLIDA",
        "slipResult": "Papereta:",
        "yes": "SÍ",
        "no": "NO",
        "tableRound": "Taula {table} · Ronda {round}",
        "tableOnly": "Taula {table}",
        "roundOnly": "Ronda {round}",
        "verdictLexicon": "{name} · versió {version} · suma {short}",
        "clear": "Esborrar",
        "clearHint": "S'esborra en {n} s. Toca la pantalla o prem una tecla per esborrar-ho ara.",
        "at": "«{char}», posició {position}: {reason}",
        "why.letter": "el joc {set} no té fitxa {letter}",
        "why.space": "un espai no és una fitxa: una paraula a cada casella",
        "why.spelling": "cap fitxa del joc {set} s'escriu així",
        "why.other": "no és una lletra del joc {set}",
        "set.es": "castellà",
        "set.ca": "català",
        "notTile": "«{char}», posició {position}: no és una fitxa d'aquest joc",
        "length": "una paraula té de {min} a {max} fitxes; aquesta en té {n}",
        "empty": "Escriu almenys una paraula.",
        "emptyWord": "casella buida",
        "offline": "Sense connexió amb el servei: comprova la wifi i torna-ho a provar. No hi ha veredicte.",
        "timeout": "El servei no respon: torna-ho a provar. No hi ha veredicte.",
        "failed": "El servei ha fallat ({status}): torna-ho a provar. No hi ha veredicte.",
        "refused": "El servei no accepta aquesta consulta: {detail}. No hi ha veredicte.",
        "unknownLexicon": "El servei ja no té aquest lèxic: torna a carregar la pàgina. No hi ha veredicte.",
        "tokenLabel": "Codi del torneig",
        "tokenHelp": "Aquest servei demana el codi del torneig: demana'l a la direcció del torneig.",
        "tokenWrong": "El codi no és vàlid: demana'l a la direcció del torneig. No hi ha veredicte.",
        "tokenSave": "Desar el codi",
    },
}


# -- rendering and serving -----------------------------------------------------------------------


class Asset:
    """A body served from memory, with its ETag and, when it is worth it, a gzip copy."""

    def __init__(self, body: bytes, content_type: str, cache_control: str):
        self.body = body
        self.content_type = content_type
        self.cache_control = cache_control
        self.digest = hashlib.sha256(body).hexdigest()[:16]
        self.gzipped = gzip.compress(body, 9, mtime=0) if len(body) > 1024 else None

    def response(self, extra_headers: Mapping[str, str] | None = None) -> Response:
        gzip_ok = self.gzipped is not None and "gzip" in request.headers.get("Accept-Encoding", "")
        etag = self.digest + ("-gz" if gzip_ok else "")
        headers = {"Cache-Control": self.cache_control, "X-Content-Type-Options": "nosniff",
                   "Vary": "Accept-Encoding", **(extra_headers or {})}
        if request.if_none_match.contains(etag):
            response = Response(status=304, headers=headers)
            response.set_etag(etag)
            return response
        if gzip_ok:
            response = Response(self.gzipped, headers=headers, content_type=self.content_type)
            response.headers["Content-Encoding"] = "gzip"
        else:
            response = Response(self.body, headers=headers, content_type=self.content_type)
        response.set_etag(etag)
        return response


def _read_assets() -> dict[str, Asset]:
    immutable = "public, max-age=31536000, immutable"  # the page links them with ?v=digest
    return {name: Asset((STATIC / name).read_bytes(), TYPES[Path(name).suffix], immutable)
            for name in ASSETS}


def render(app: Flask, seconds: float, assets: Mapping[str, Asset]) -> bytes:
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                                     autoescape=True, trim_blocks=True, lstrip_blocks=True)
    data = page_data(app, seconds)
    first = next((item for item in data["lexicons"] if item["default"]), None)
    language = first["language"] if first and first["language"] in TEXTS else "es"
    html = environment.get_template("judge.html").render(
        lang=language, t=TEXTS[language], data=data, data_json=_script_json(data),
        selected=first["id"] if first else None,
        asset={name: f"static/{name}?v={asset.digest}" for name, asset in assets.items()},
    )
    return html.encode("utf-8")


def register_page(app: Flask, test_config: Mapping[str, Any] | None = None) -> None:
    """Serve the judge's page on `app` (after its lexicons are loaded: the page lists them)."""
    seconds = verdict_seconds(test_config)
    assets = _read_assets()
    page = Asset(render(app, seconds, assets), "text/html; charset=utf-8", "no-cache")
    app.extensions["judge_page"] = {"page": page, "assets": assets, "verdict_seconds": seconds}
    app.register_blueprint(blueprint)


PAGE_HEADERS = {"Content-Security-Policy": CSP, "Referrer-Policy": "no-referrer",
                "X-Frame-Options": "DENY"}


@blueprint.get("/")
def judge_page() -> Response:
    return current_app.extensions["judge_page"]["page"].response(PAGE_HEADERS)


@blueprint.get("/static/<name>")
def judge_asset(name: str) -> Response:
    asset = current_app.extensions["judge_page"]["assets"].get(name)
    if asset is None:
        abort(404)
    return asset.response()


__all__ = ["blueprint", "register_page", "verdict_seconds", "page_data", "alphabet_data",
           "unicode_facts", "TEXTS", "ASSETS", "DEFAULT_VERDICT_SECONDS"]

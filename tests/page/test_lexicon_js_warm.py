"""lexicon.js in Chromium: its WebAssembly is compiled before the first lexicon arrives.

V8 compiles WebAssembly lazily: a function when it is first called, and optimized only once it
has run a while. lexicon.js therefore runs both of its functions on a made-up automaton as soon
as they are compiled (`warm`, while the page downloads its lexicon), so that a phone's first
`load` finds them compiled instead of compiling them and running the plain code. Seen here in
Chromium's trace: no function is compiled during the first load. The time it saves is `python
-m bench chromium`'s (a page's first load, throttled 4x).
"""

from __future__ import annotations

import base64
import json

from lexicon.browser import browser_bytes
from lexicon.lexfile import Lexicon
from service.static_files import source

CATEGORIES = ["v8.wasm", "disabled-by-default-v8.wasm.detailed"]  # where V8 says what it compiles
LOAD = """async (data) => {
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  return (await LexiconDawg.load(bytes.buffer)).engine;
}"""


def test_the_first_load_finds_the_webassembly_compiled(browser, page_lexicons):
    data = base64.b64encode(browser_bytes(Lexicon.open(page_lexicons["es-page"]))).decode("ascii")
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_content("<!doctype html><title>lexicon.js</title>")
        page.add_script_tag(content=source("lexicon.js").decode("utf-8"))  # its parts, joined
        page.wait_for_function("() => performance.getEntriesByName('lexicon.js warm').length === 1")
        browser.start_tracing(page=page, categories=CATEGORIES)
        try:
            engine = page.evaluate(LOAD, data)
        finally:
            events = json.loads(browser.stop_tracing())["traceEvents"]
    finally:
        context.close()
    assert engine == "wasm"
    compiled = [event["name"] for event in events if event.get("name", "").startswith("wasm.Compile")]
    assert compiled == [], f"compiled during the first load: {compiled}"

"""Each page script says in its first lines what it uses and what it gives, and the pages load
them in an order that holds to it.

The scripts are classic scripts, not ES modules (docs/judge-page.md, "Its scripts"): a page's
files share the window, and the parts of a file written in parts (service/static_files.py: PARTS)
share one function's scope. So each part begins with ESLint's `/* global … */` (the names it uses
from other parts and files) and `/* exported … */` (the names it gives them). ESLint (`make
check`) holds each part to its header: a name used and not declared there fails (no-undef), and
so does a name declared there and not used, or a top-level name neither used nor exported
(no-unused-vars). This test holds the headers to each page's order:

- every name a part uses is given by a part loaded before it on each page that loads it; or by a
  later part of the same joined file as a function declaration (hoisted over the function they
  share: a part calls it only once the page has started);
- every name a part gives is declared at its top level, or set on `window`/`globalThis`, and used
  by some other part; no name is given by two parts of a page.
"""

from __future__ import annotations

import re

import pytest

from service.director import ASSETS as DIRECTOR_ASSETS
from service.page import LATER
from service.static_files import PARTS, STATIC

from .conftest import REPO

HEADER = re.compile(r"\A(?:/\* (?:global|exported) [^*]*\*/\n)+")
LIST = re.compile(r"/\* (global|exported) ([^*]*)\*/")
# What the service writes for the pages, as scripts of their own: offline-data.js
# (service/page_data.py) and the line before sw.js (service/installable.py).
WRITTEN = {
    "offline-data.js": (REPO / "service" / "page_data.py", re.compile(r"window\.(\w+) = ")),
    "installable.py": (REPO / "service" / "installable.py", re.compile(r'"const (\w+) = ')),
}


def judge_order() -> tuple[str, ...]:
    """The judge's page's scripts in the order they run: those its template links (event.js, in
    an event, in the head), then those judge.js adds after first paint (LATER)."""
    template = (REPO / "service" / "templates" / "judge.html").read_text()
    return (*re.findall(r"""<script src="\{\{ asset\['([\w.-]+\.js)'\] \}\}">""", template), *LATER)


def pages() -> dict[str, tuple[str, ...]]:
    judge = judge_order()
    plain = tuple(name for name in judge if name != "event.js")
    return {
        "judge": plain,
        "judge in an event": judge,
        "single file": (*plain, "standalone.js"),  # service/single_file.py inlines them so
        "director": tuple(name for name in DIRECTOR_ASSETS if name.endswith(".js")),
        "service worker": ("installable.py", "sw.js"),
    }


def text(name: str) -> str:
    return WRITTEN[name][0].read_text() if name in WRITTEN else (STATIC / name).read_text()


def header(name: str) -> dict[str, list[str]]:
    """A script's `global` and `exported` names; for what the service writes, what it sets."""
    if name in WRITTEN:
        path, pattern = WRITTEN[name]
        return {"global": [], "exported": pattern.findall(path.read_text())}
    found = HEADER.match(text(name))
    lists: dict[str, list[str]] = {"global": [], "exported": []}
    for kind, names in LIST.findall(found.group(0) if found else ""):
        lists[kind] += [item for item in re.split(r"[\s,]+", names) if item]
    return lists


def declares(source: str, name: str) -> bool:
    """Whether `name` is declared at a script's top level (a line that starts unindented; the
    layout ESLint checks), or set on the window."""
    word = re.escape(name)
    return bool(
        re.search(rf"^(?:async )?function\*? {word}\(|^class {word}\b", source, re.M)
        or re.search(rf"^(?:const|let) (?:[^;]*?[,\s])?{word} = ", source, re.M)
        or re.search(rf"\b(?:window|globalThis|global)\.{word} = ", source)
    )


def problems(order: tuple[str, ...], read=header, source=text, parts=PARTS) -> list[str]:
    """What breaks the rules above on a page loading `order` (a joined file stands for its parts)."""
    scripts = [(part, name) for name in order for part in parts.get(name, (name,))]
    given: dict[str, str] = {}
    found = []
    for index, (part, name) in enumerate(scripts):
        lists = read(part)
        later = [other for other, whole in scripts[index + 1 :] if whole == name and other != part]
        for used in lists["global"]:
            if used in given:
                continue
            hoisted = [other for other in later if used in read(other)["exported"]]
            if not any(re.search(rf"^(?:async )?function {re.escape(used)}\(", source(o), re.M) for o in hoisted):
                found.append(f"{part} uses {used}, which no script before it gives")
        for name_given in lists["exported"]:
            if name_given in given:
                found.append(f"{name_given} is given by {given[name_given]} and by {part}")
            given[name_given] = part
            if part not in WRITTEN and not declares(source(part), name_given):
                found.append(f"{part} gives {name_given}, which it does not declare")
    return found


@pytest.mark.parametrize("page", sorted(pages()))
def test_every_name_a_script_uses_is_given_before_it_and_once(page):
    assert problems(pages()[page]) == []


def test_every_script_has_its_header_and_every_name_given_is_used():
    scripts = sorted(
        {path.relative_to(STATIC).as_posix() for path in STATIC.rglob("*.js")}
        - set(PARTS)  # served joined; written as their parts
    )
    loaded = {part for order in pages().values() for name in order for part in PARTS.get(name, (name,))}
    assert set(scripts) <= loaded, "a script no page loads"
    used = {name for script in loaded for name in header(script)["global"]}
    for script in scripts:
        lists = header(script)
        assert lists["global"] or lists["exported"], f"{script} says nothing of what it uses or gives"
        for name in lists["exported"]:
            # what a file sets on the window is also the page's interface (tests, the curious)
            window = re.search(rf"\b(?:window|globalThis)\.{re.escape(name)} = ", text(script))
            assert name in used or window, f"{script} gives {name}, which no script uses"


def test_a_name_used_before_it_is_given_or_given_twice_is_found():
    """The rules catch what they are for: a part using a later part's constant, a name given by
    two parts, a name given and never declared (a joined file made up for the test)."""
    sources = {
        "a.js": "/* global late, hoisted */\n/* exported one */\nconst one = 1;\n",
        "b.js": "/* exported late, hoisted, one */\nconst late = 2;\nfunction hoisted() {}\n",
        "c.js": "/* exported ghost */\n",
    }

    def read(name):
        lists: dict[str, list[str]] = {"global": [], "exported": []}
        for kind, names in LIST.findall(sources[name]):
            lists[kind] += [item for item in re.split(r"[\s,]+", names) if item]
        return lists

    found = problems(("made.js",), read=read, source=sources.__getitem__, parts={"made.js": tuple(sources)})
    assert found == [
        "a.js uses late, which no script before it gives",
        "one is given by a.js and by b.js",
        "b.js gives one, which it does not declare",
        "c.js gives ghost, which it does not declare",
    ]


def test_the_header_is_where_eslint_and_this_test_read_it():
    """First in the file, before its description: `/* global … */`, then `/* exported … */`."""
    for path in sorted(STATIC.rglob("*.js")):
        source = path.read_text()
        found = HEADER.match(source)
        assert found, f"{path.name}: no header"
        assert not re.search(r"^/\* (?:global|exported) ", source[found.end() :], re.M), path

"""axe-core in a page driven by Playwright: the accessibility rules a page breaks, in any state.

axe-core comes from npm, installed by `make axe` (pinned to its major, into build/node, which
`make test` does first); nothing is fetched at test time. Without it a test that asks for it
FAILS, loudly, as the browser tests do without Chromium. Reusable by any page's tests:

    from tests.page.axe import assert_accessible
    assert_accessible(page, "console, signed in")

The script is evaluated through the DevTools protocol, as Playwright's own evaluations are, so
a page's Content-Security-Policy (no inline script) needs no exception for it.
"""

from __future__ import annotations

from functools import cache

import pytest

from tests.support import REPO

AXE = REPO / "build" / "node" / "node_modules" / "axe-core" / "axe.min.js"  # make axe
# WCAG 2.2 A and AA, and axe's best practices (headings, landmarks, regions...).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


@cache
def source() -> str:
    if not AXE.is_file():
        pytest.fail(f"axe-core is not installed at {AXE}: `make axe` installs it (npm, axe-core@4).", pytrace=False)
    return AXE.read_text(encoding="utf-8")


def violations(page, include: str | None = None) -> list[dict]:
    """axe's violations on the page as it is now (or in the element `include` selects): each
    {id, impact, help, nodes: [target selectors]}.

    In forced colours the text's colours are the reader's own system colours, not the page's, and
    axe-core measures them wrong there: it reads the text's colour from -webkit-text-fill-color,
    which forced colours leave as the page wrote it, and the ground's from background-color, which
    they force (a known axe-core bug). So its color-contrast rule is left out in that mode, and
    every other rule runs; tests/page/test_phone_large_text.py checks what forced colours must keep."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(source() + "\n;undefined")
    return page.evaluate(
        """([include, tags]) => axe.run(include ? document.querySelector(include) : document,
        { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"],
          rules: matchMedia("(forced-colors: active)").matches ? { "color-contrast": { enabled: false } } : {} })
        .then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => n.target.join(" ")) })))""",
        [include, TAGS],
    )


def assert_accessible(page, state: str, include: str | None = None) -> None:
    """No axe violation in this state; else the list, readable, as the failure."""
    found = violations(page, include)
    assert not found, f"{state}: " + "; ".join(
        f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes'][:3]}" for v in found
    )


__all__ = ["AXE", "TAGS", "assert_accessible", "violations"]

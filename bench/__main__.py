"""`make bench`: every benchmark section, each printing a table of figures (Markdown).

    python -m bench             all sections
    python -m bench compile     only the named sections
"""

from __future__ import annotations

import importlib
import platform
import sys
import time

SECTIONS = ["compile", "disc", "diff", "api", "service", "browser", "chromium", "offline", "single_file", "tournament",
            "event", "rehearsal"]


def main(argv: list[str]) -> int:
    wanted = argv or SECTIONS
    unknown = [name for name in wanted if name not in SECTIONS]
    if unknown:
        print(f"unknown section(s) {unknown}; known: {SECTIONS}", file=sys.stderr)
        return 2
    print(f"<!-- {platform.node()} {platform.machine()}, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d %H:%M')} -->\n")
    for name in wanted:
        module = importlib.import_module(f"bench.{name}")
        for table in module.run():
            print(table.render(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

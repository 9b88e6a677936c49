"""Generators of the judge's page's committed assets: the installed app's icons (`icons`) and the
WebAssembly inside lexicon.js (`wasm`).

A developer's tools, run from a checkout (`python -m asset_tools.icons`, `python -m asset_tools.wasm`)
to rewrite files under service/static/; tests check that the committed files are what they make.
They read the service's own lists (the icons the web manifest names, the page's folder), so they sit
above `service` in the layers, and are not installed: an installed service never redraws its page.
"""

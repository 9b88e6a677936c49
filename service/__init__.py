"""Lexicon Judge's challenge service: joint verdicts over HTTP, on Flask (and gunicorn).

    from service import create_app
    app = create_app()                       # the manifest's lexicons, settings from LEXICON_*
    app = create_app({"LEXICON_FILES": ["es.lex", "ca.lex"], "TESTING": True})

The app is built in `service.app`; this package imports it only when asked (a module
`__getattr__`, PEP 562), so a command that reads the settings (`service.config`) does not load
Flask: `lexicon check es CARRO` stays quick.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["Settings", "SettingsError", "StartError", "check_event", "create_app", "load_registry", "load_settings"]

_WHERE = {
    "create_app": "app",
    "check_event": "app",
    "Settings": "config",
    "SettingsError": "config",
    "load_settings": "config",
    "StartError": "registry",
    "load_registry": "registry",
}

if TYPE_CHECKING:  # pragma: no cover
    from .app import check_event, create_app
    from .config import Settings, SettingsError, load_settings
    from .registry import StartError, load_registry


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'service' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value

"""DISC (Catalan Scrabble word list) sources: flexion models, expansion, checks.

DISC is published as lemmas plus flexion models, not as a finished list, so
the compiler expands them itself; these modules are the project's own reading
of the format described in DOMAIN.md ("DISC flexion sources").
"""

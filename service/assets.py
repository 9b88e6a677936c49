"""Bodies the service sends from memory, as HTTP means them to be cached: the judge's page and its files.

Each body is read (or rendered) once, when the app is created. A response carries a strong ETag
(a digest of the bytes sent) and goes through Werkzeug's `Response.make_conditional`, so a
browser revalidating with If-None-Match gets a 304 without a body.

Bodies over 1 KiB are also gzipped once, at start (level 9, no timestamp: the same bytes in every
worker), and sent gzipped to a browser whose Accept-Encoding allows it (Werkzeug's parsing, so
`gzip;q=0` is a refusal). That is what a phone downloads on the venue Wi-Fi when the service is
reached directly, with no proxy in front to compress: about a third of the bytes
(docs/judge-page.md). The gzipped body is another representation: its own ETag, and `Vary:
Accept-Encoding` on both.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
from collections.abc import Mapping

from flask import Response, request

GZIP_FROM = 1024  # bytes: below this, gzip's header and a round of CPU are not worth it


def digest(body: bytes) -> str:
    """A short content digest: ETags and the `?v=` of immutable asset links."""
    return hashlib.sha256(body).hexdigest()[:16]


@functools.lru_cache(maxsize=128)
def gzipped(body: bytes) -> bytes:
    """The body gzipped at level 9, with no timestamp: the same bytes for the same body, so made
    once for each content (every app made again, a reload's or each test's, sends the same files
    and pages: at level 9 that was most of making an app)."""
    return gzip.compress(body, 9, mtime=0)


class Asset:
    """One body with its content type and caching policy, plain and (when worth it) gzipped."""

    def __init__(self, body: bytes, content_type: str, cache_control: str, headers: Mapping[str, str] | None = None):
        self.body = body
        self.content_type = content_type
        self.digest = digest(body)
        self.gzipped = gzipped(body) if len(body) >= GZIP_FROM else None
        self.headers = {
            "Cache-Control": cache_control,
            "X-Content-Type-Options": "nosniff",
            "Vary": "Accept-Encoding",
            **(headers or {}),
        }

    def response(self) -> Response:
        """This body for the current request: gzipped if accepted, 304 if the browser has it."""
        zipped = self.gzipped is not None and request.accept_encodings["gzip"] > 0
        response = Response(self.gzipped if zipped else self.body, headers=self.headers, content_type=self.content_type)
        if zipped:
            response.headers["Content-Encoding"] = "gzip"
        response.set_etag(self.digest + ("-gz" if zipped else ""))
        return response.make_conditional(request)


__all__ = ["Asset", "digest"]

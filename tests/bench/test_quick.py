"""`python -m bench quick`'s profile table: a request's frames, each with its share of the request.

Never timed: what is asserted is that the table names the frames a plain challenge goes through
(the words read into keys, the lookups) with shares of one request, and none of the event's."""

from __future__ import annotations

import json

from bench import quick
from bench.service_in_process import wsgi_call
from bench.wrk import PLAY3
from tests.support import compile_list


def test_the_frames_of_a_plain_challenge_are_named_with_their_share_of_the_request(tmp_path):
    from service import create_app

    lexicon = compile_list(tmp_path / "es.lex", PLAY3["words"], "es", "letterpress-es", "bench es")
    app = create_app(
        {
            "LEXICON_FILES": [str(lexicon)],
            "LEXICON_TOKEN": None,
            "LEXICON_CORS_ORIGINS": "",
            "LEXICON_LOG_LEVEL": "warning",
        }
    )
    call = wsgi_call(app, "POST", "/v1/challenge", json.dumps(PLAY3).encode())
    assert call() == "200 OK"
    whole, frames = quick.top_frames(call, 50)
    shares = dict(frames)
    assert whole > 0
    assert (
        "words to keys (lexicon/tokenizer.py Tokenizer.play)" in shares
        and "lookups (lexicon/verdict.py lookup_all)" in shares
    )
    assert "who asks (service/event/admission.py admit)" not in shares  # no event: no hook called
    assert all(0 < share <= 1 for share in shares.values())
    # Answered in front of Flask (service.fast_challenge): none of Flask's frames
    assert (
        shares[
            "in front of Flask (service/fast_challenge.py FastChallenge, RecordedChallenge; Flask within it for what it passes on)"
        ]
        > 0.5
    )
    assert "Flask's app (flask wsgi_app)" not in shares and "the view (flask dispatch_request)" not in shares
    assert (
        shares["the route's call (service/api.py Challenges.post)"] > shares["lookups (lexicon/verdict.py lookup_all)"]
    )

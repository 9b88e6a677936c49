"""deploy/nginx.conf's access log names routes as the service's own log does, never a path as typed.

Read from the file itself, without nginx: its `map $uri $route` must give every route of the app
(tournament mode included, the app with the most routes) the label the service logs for it, and
`[no route]` to any other path, so a word typed into a path never reaches nginx's log either.
"""

from __future__ import annotations

import re

import pytest

from service import create_app
from service.logs import NO_ROUTE
from tests.support import REPO
from tournament import create_event

SAMPLE = {"int": "42", "default": "es-mini"}  # a value for each converter the routes use


def route_map() -> tuple[str, list[tuple[re.Pattern, str]]]:
    """(default label, [(pattern, label)]) of nginx.conf's `map $uri $route`, in nginx's order."""
    text = (REPO / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    body = re.search(r"map \$uri \$route \{\n(.*?)\n\s*\}", text, re.S).group(1)
    default, patterns = None, []
    for line in body.splitlines():
        key, value = line.strip().rstrip(";").split(None, 1)
        value = value.strip('"')
        if key == "default":
            default = value
        else:
            assert key.startswith("~"), f"only regular expressions here: {line}"
            patterns.append((re.compile(key[1:]), value))
    return default, patterns


def nginx_label(path: str) -> str:
    default, patterns = route_map()
    for pattern, label in patterns:  # nginx tries a map's regular expressions in order
        match = pattern.search(path)
        if match:
            return match.group(1) if label == "$1" else label
    return default


@pytest.fixture(scope="module")
def rules(tmp_path_factory, spanish_file):
    path = tmp_path_factory.mktemp("nginx-log") / "event.db"
    create_event(path, "Open", "a-long-password-1234", lexicon="es").close()
    app = create_app({"LEXICON_FILES": [str(spanish_file)], "LEXICON_EVENT": str(path)})
    return sorted({rule.rule for rule in app.url_map.iter_rules()})


def test_every_route_of_the_app_is_logged_by_nginx_as_the_service_logs_it(rules):
    assert len(rules) > 20
    for rule in rules:
        path = re.sub(r"<(?:(\w+):)?\w+>", lambda m: SAMPLE[m.group(1) or "default"], rule)
        assert nginx_label(path) == rule, (rule, path)
        # in a service of every event of a database, the event's app logs its route without /e/ID
        assert nginx_label("/e/open-lleida-2026" + path) == rule, (rule, path)


@pytest.mark.parametrize(
    "path",
    [
        "/v1/PERA/MANGO",
        "/MANGO",
        "/v1/challenge/MANGO",
        "/v1/records/MANGO",
        "/static/a/MANGO",
        "/v1/challengeMANGO",
        "/directorMANGO",
        "/e/MANGO/v1/challenge",
        "/e//v1/challenge",
        "/e/open/v1/MANGO",
        "/x/e/open/v1/challenge",
    ],
)
def test_any_other_path_is_no_route(path):
    assert route_map()[0] == NO_ROUTE
    assert nginx_label(path) == NO_ROUTE

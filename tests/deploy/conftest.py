"""nginx for the deployment tests: Debian's package, installed here when missing (as root), with
gettext-base for envsubst, which renders deploy/nginx.conf as docs/operations.md says."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


@pytest.fixture(scope="session")
def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if shutil.which("envsubst") is None:
        found = None
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (
            ["apt-get", "install", "-y", "-qq", "nginx", "gettext-base"],
            ["apt-get", "update", "-qq"],
            ["apt-get", "install", "-y", "-qq", "nginx", "gettext-base"],
        ):
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
            if found and shutil.which("envsubst"):
                break
    if found is None or shutil.which("envsubst") is None:
        pytest.fail(
            "Debian's nginx or envsubst is not installed and could not be installed here: `make nginx` "
            "(apt-get install nginx gettext-base) as root",
            pytrace=False,
        )
    return found


@pytest.fixture(scope="session")
def spanish_file(tmp_path_factory):
    from tests.support import compile_list

    words = "CARRO CHICO PERRO CASA MESA GATO LUNA AGUA".split()
    return compile_list(
        tmp_path_factory.mktemp("deploy-lexicons") / "es-mini.lex", words, "es", "es-mini", "Mini español"
    )

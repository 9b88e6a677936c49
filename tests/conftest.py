"""Fixtures shared by every test folder."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# CI runs on a shared 2-core machine: no deadlines (they fail on noise, not on bugs), and
# derandomized so a failure reproduces; `HYPOTHESIS_PROFILE=dev` explores more, randomly.
settings.register_profile(
    "ci", deadline=None, derandomize=True, max_examples=150, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

"""Pure rules tests: no Django, no database (run alone with ``pytest -p no:django tests/rules``).

Hypothesis profiles for the conformance suite, chosen by ``HYPOTHESIS_PROFILE``:

* ``ci`` (default): bounded examples; the whole ``tests/rules`` suite stays under a minute;
* ``long``: ``HYPOTHESIS_PROFILE=long`` plays twenty times more games.

The profiles are registered here and applied by the conformance tests' own ``@settings`` (scaled by
:data:`SCALE`), so loading this package never changes hypothesis' global settings for other tests.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
SCALE = 20 if PROFILE == "long" else 1

settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "long", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=2000
)


def rules_settings(examples: int) -> settings:
    """Settings for a conformance test: ``examples`` in the ``ci`` profile, x SCALE in ``long``."""
    return settings(
        max_examples=examples * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )

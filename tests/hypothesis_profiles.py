"""Two hypothesis profiles: ``thorough`` (local runs: every property test
draws the examples its decorator names) and ``ci`` (the test command under
CI=true: a bounded share of them, so the whole command stays within its
budget on a 2-core machine).  Choose with ``CUGRAPH_MATCH_HYPOTHESIS=ci`` or
``=thorough``; unset, CI=true means ``ci``.

A test names its example count through :func:`examples`, which scales it by
the profile; the profile also sets hypothesis's own default for tests that
name none.  Both profiles run every property and every explicit
``@example``; only the number of random draws differs.
"""

from __future__ import annotations

import os

from hypothesis import settings

PROFILE = os.environ.get("CUGRAPH_MATCH_HYPOTHESIS",
                         "ci" if os.environ.get("CI", "").lower() in ("1", "true") else "thorough")
if PROFILE not in ("ci", "thorough"):
    raise ValueError(f"CUGRAPH_MATCH_HYPOTHESIS must be 'ci' or 'thorough', got {PROFILE!r}")

# the share of each test's examples a profile draws, and the fewest it draws
SCALE = {"thorough": 1.0, "ci": 0.4}[PROFILE]
FEWEST = 5

settings.register_profile("thorough", deadline=None)
settings.register_profile("ci", deadline=None, max_examples=40, print_blob=True)
settings.load_profile(PROFILE)


def examples(count: int) -> int:
    """``count`` examples under ``thorough``; the profile's share of them
    (at least ``FEWEST``, never more than ``count``) under ``ci``."""
    return min(count, max(FEWEST, round(count * SCALE)))

"""Fixtures of the container tests: the images, built once per session, and a clear skip
where podman cannot run (unless ``ALLFOURS_REQUIRE_CONTAINERS=1``, as in CI, where that is a
failure). The API tests' helpers (``tests/api/support.py``) are importable from here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))

from podman_support import APP_IMAGE, PYTHON_IMAGE, build_images, image_size_mb, unavailable


@pytest.fixture(scope="session")
def images() -> dict[str, float]:
    """Builds the stand-ins and the project's image; their sizes in MB."""
    reason = unavailable()
    if reason is not None:
        if os.environ.get("ALLFOURS_REQUIRE_CONTAINERS") == "1":
            pytest.fail(f"container tests required, but {reason}")
        pytest.skip(reason)
    build_images()
    return {image: image_size_mb(image) for image in (PYTHON_IMAGE, APP_IMAGE)}

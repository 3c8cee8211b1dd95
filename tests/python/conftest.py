"""Shared fixtures of the Python tests (run by ctest: tests/python/python.cmake sets the environment)."""
import os
import pathlib

import pytest

# Two cores shared by many processes: OpenMP's spinning waits make the tiny test scenes 100x slower
# (the bits are the same either way). Read by libgomp when yee is first imported, after this file.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

SOURCE = pathlib.Path(os.environ.get("YEE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SCENES = SOURCE / "resources" / "scenes"


@pytest.fixture
def scenes():
    """The example scenes' directory."""
    return SCENES


@pytest.fixture
def yee_run():
    """Path of the yee-run binary (YEE_RUN, set by ctest)."""
    path = os.environ.get("YEE_RUN")
    if not path or not os.path.exists(path):
        pytest.skip("YEE_RUN not set (run through ctest)")
    return path

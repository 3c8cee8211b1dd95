"""Shared fixtures of the Python tests (run by ctest: tests/python/python.cmake sets the environment)."""
import os
import pathlib

import pytest

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

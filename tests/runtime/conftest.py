"""Fixtures of the runtime tests: the notes app (see `notes_app.py`) and simulators/envs on it."""

from __future__ import annotations

import pytest

from phoneworld.ir.app import AppSpec
from phoneworld.runtime import PhoneEnv, Simulator

from .notes_app import notes_app


@pytest.fixture(scope="session")
def app() -> AppSpec:
    return notes_app()


@pytest.fixture
def sim(app: AppSpec) -> Simulator:
    return Simulator(app)


@pytest.fixture
def env(app: AppSpec) -> PhoneEnv:
    return PhoneEnv(app)

"""The screen matcher names the simulator's screen from its view tree alone (what a device without
`files/screen.json` shows), on random walks through two apps; another package is `@launcher`."""

from __future__ import annotations

import random

import pytest

from phoneworld.devices.screens import ScreenMatcher, scale_view
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.actions import parse_action
from phoneworld.runtime.sim import Simulator

from ..runtime.notes_app import five_notes, notes_app
from .conftest import any_action


def _walk(spec: AppSpec, seed: int, state: dict | None = None, steps: int = 150) -> None:
    sim, rng, matcher = Simulator(spec), random.Random(seed), ScreenMatcher(spec)
    sim.reset(state)
    w, h = spec.device.width, spec.device.height
    for _ in range(steps):
        assert matcher.match(sim.view()) == sim.screen
        f = sim.frame()
        for a in parse_action(any_action(f.elements, rng, spec.package), f.elements, w, h):
            sim.step(a)


@pytest.mark.parametrize("seed", range(4))
def test_example_app(example_spec: AppSpec, seed: int) -> None:
    _walk(example_spec, seed)


@pytest.mark.parametrize("seed", range(4))
def test_notes_app(seed: int) -> None:
    _walk(notes_app(), seed, five_notes())


def test_scaling_round_trips(example_spec: AppSpec) -> None:
    root = Simulator(example_spec).view()
    assert scale_view(scale_view(root, 2.0, 2.0), 0.5, 0.5) == root

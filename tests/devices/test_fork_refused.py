"""An env on a device (the APK over adb, here a virtual device) cannot be snapshotted or forked:
its state is on the device. It says so, with what to do instead."""

from __future__ import annotations

from typing import Any

import pytest

from phoneworld.errors import EnvError
from phoneworld.ir.app import AppSpec
from phoneworld.runtime import PhoneEnv, VectorPhoneEnv


def test_an_adb_env_refuses_to_fork(example_spec: AppSpec, farm: Any) -> None:
    env = PhoneEnv(example_spec, backend=farm.backend(0))
    message = "AdbBackend backend cannot be snapshotted or forked.*backend='sim'.*fleet"
    with pytest.raises(EnvError, match=message):
        env.fork(2)
    with pytest.raises(EnvError, match=message):
        env.snapshot()
    with pytest.raises(EnvError, match=message):
        VectorPhoneEnv.fork(env, 2)

"""The jinja2 templates, shipped as package data: `kotlin/` mirrors an app's `android/` folder,
`verifiers/` its `verifiers/` and `report/` its `report.html`.

They are found through the package (`jinja2.PackageLoader`, which goes through `importlib`), so an
editable install, a source tree on `sys.path` and a wheel in site-packages all read the same files.
"""

from __future__ import annotations

import jinja2

from phoneworld.errors import ToolchainError

__all__ = ["loader"]


def loader(folder: str) -> jinja2.BaseLoader:
    """The loader of one template folder (`kotlin`, `verifiers` or `report`)."""
    try:
        return jinja2.PackageLoader(__name__, folder)
    except ValueError as e:
        raise ToolchainError(
            f"the {folder} templates are missing from the installed phoneworld package ({e}); "
            "reinstall it (`pip install --force-reinstall phoneworld`)") from e

"""Headless Chromium for the report tests: Debian's `chromium`, driven through `chromedriver` by
selenium, started as the machine notes say (no sandbox, no GPU, no background networking, a fresh
profile). A visit loads a page from disk and collects what the tests assert on: load and paint
times, console messages, every request the page made, element counts, a full-page screenshot."""

from __future__ import annotations

import base64
import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
    "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1400,1000",
)
MAX_SHOT_HEIGHT = 16000  # Chromium's largest capture

COUNT_JS = """return {
  cards: document.querySelectorAll('.screen-card').length,
  nodes: document.querySelectorAll('svg.graph g.node').length,
  edges: document.querySelectorAll('svg.graph g.edge').length,
  mismatches: document.querySelectorAll('tr.mismatch').length,
  tasks: document.querySelectorAll('tr.task').length,
  broken_uses: [...document.querySelectorAll('use')].filter(
      u => !document.getElementById(u.getAttribute('href').slice(1))).length,
  height: document.documentElement.scrollHeight,
};"""
PAINT_JS = """const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now())));"""
LOAD_JS = "return performance.getEntriesByType('navigation')[0].loadEventEnd;"
RESOURCES_JS = "return performance.getEntriesByType('resource').map(r => r.name);"


@dataclass
class Visit:
    wall_s: float  # driver.get() of the page, which returns after the load event
    load_ms: float  # navigation start to the end of the load event
    painted_ms: float  # navigation start to the second animation frame after load
    console: list[dict[str, Any]]
    requests: list[str]  # URLs the page asked for other than itself and data: URIs
    resources: list[str]  # resource timing entries (any fetch the page made)
    counts: dict[str, int]


class Browser:
    def __init__(self, profile: Path) -> None:
        try:
            from selenium import webdriver
            from selenium.webdriver.chrome.service import Service
        except ImportError:
            pytest.skip("selenium is not installed (pip install -e '.[test]')")
        for tool in (CHROMIUM, CHROMEDRIVER):
            if not Path(tool).exists() and shutil.which(Path(tool).name) is None:
                pytest.skip(f"{tool} is absent (make deps installs Debian's chromium and "
                            "chromium-driver)")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in (*FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_script_timeout(30)

    def visit(self, page: Path) -> Visit:
        d = self.driver
        d.get("about:blank")
        d.get_log("performance")  # drop what the start page did
        d.get_log("browser")
        url = page.resolve().as_uri()
        start = time.perf_counter()
        d.get(url)
        wall = time.perf_counter() - start
        painted = float(d.execute_async_script(PAINT_JS))
        events = [json.loads(e["message"])["message"] for e in d.get_log("performance")]
        requests = [m["params"]["request"]["url"] for m in events
                    if m["method"] == "Network.requestWillBeSent"]
        return Visit(
            wall, float(d.execute_script(LOAD_JS)), painted, d.get_log("browser"),
            [u for u in requests if u != url and not u.startswith("data:")],
            list(d.execute_script(RESOURCES_JS)), dict(d.execute_script(COUNT_JS)))

    def screenshot(self, path: Path, height: int) -> None:
        """The whole page (up to MAX_SHOT_HEIGHT pixels) as a PNG."""
        clip = {"x": 0, "y": 0, "width": 1400, "height": min(height, MAX_SHOT_HEIGHT), "scale": 1}
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True, "clip": clip})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        self.driver.quit()

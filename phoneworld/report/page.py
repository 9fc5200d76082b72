"""The HTML report of one built app: the page's sections assembled and rendered by jinja2.

One `Environment` with `StrictUndefined` and autoescaping renders `phoneworld/templates/report/`:
every string that came from a trace is escaped there. The page is one self-contained file
(pictures embedded once as SVG symbols, no script, a content security policy that forbids any
request), and it is deterministic: same build, byte-identical page.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jinja2

from phoneworld import templates
from phoneworld.ir.app import AppSpec
from phoneworld.ir.report import BuildReport
from phoneworld.report.data import page_data
from phoneworld.report.fidelity_view import FidelityView, fidelity_view
from phoneworld.report.graph_view import GraphView, transition_graph
from phoneworld.report.images import ImageStore, Picture
from phoneworld.report.inputs import ReportInputs
from phoneworld.report.screen_cards import ScreenCard, screen_cards
from phoneworld.report.state_view import StateView, state_view
from phoneworld.report.tasks_view import TasksView, tasks_view
from phoneworld.state.track import track

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Page:
    spec: AppSpec
    report: BuildReport
    summary: tuple[tuple[str, str], ...]
    cards: tuple[ScreenCard, ...]
    graph: GraphView
    state: StateView
    fidelity: FidelityView
    tasks: TasksView
    pictures: tuple[Picture, ...]
    data: dict[str, Any]  # machine-readable summary embedded for `phoneworld report --compare`
    has_recordings: bool


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=templates.loader("report"),
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _summary(report: BuildReport, spec: AppSpec) -> tuple[tuple[str, str], ...]:
    return (
        ("package", report.app), ("episodes", str(report.episodes)),
        ("recorded steps", str(report.steps)), ("screens", str(report.screens)),
        ("transitions", str(report.transitions)), ("state variables", str(len(spec.state))),
        ("guards", str(report.guards)),
        ("effects", ", ".join(f"{k} {v}" for k, v in report.effects.items()) or "none"),
        ("held-out fraction", f"{report.heldout_fraction:g}"),
        ("device", f"{spec.device.width} x {spec.device.height}"),
        ("diagnostics", ", ".join(f"{v} {k}(s)" for k, v in report.diagnostics.items())),
    )


def build_page(inputs: ReportInputs) -> Page:
    images = ImageStore()
    tracked = track(inputs.schema, inputs.abstraction, inputs.transitions)
    cards = screen_cards(inputs, tracked, images)
    graph = transition_graph(inputs.spec, {c.id: c.mock for c in cards})
    fidelity = fidelity_view(inputs, tracked, images)
    tasks = tasks_view(inputs, images)
    return Page(
        inputs.spec, inputs.report, _summary(inputs.report, inputs.spec), cards, graph,
        state_view(inputs.spec, inputs.report.unexplained), fidelity, tasks,
        tuple(images.pictures), page_data(inputs), any(c.recorded for c in cards))


def render_page(page: Page) -> str:
    return environment().get_template("report.html.j2").render(page=page)


def render_report(inputs: ReportInputs) -> str:
    """The report page of one built app (HTML text)."""
    start = time.perf_counter()
    html = render_page(build_page(inputs))
    log.info("report of %s: %d bytes in %.2f s", inputs.spec.package, len(html),
             time.perf_counter() - start)
    return html

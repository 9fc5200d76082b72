"""The HTML report of a built app (`report.html`) and the comparison of two builds.

`render_report(inputs)` renders the page of one app from its build (`ReportInputs`, handed over by
the pipeline); `phoneworld.report.regenerate` rebuilds it for an app folder from the traces, and
`phoneworld.report.compare` compares two builds of the same traces.
"""

from phoneworld.report.inputs import ReportInputs
from phoneworld.report.page import render_report

__all__ = ["ReportInputs", "render_report"]

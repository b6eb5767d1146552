"""Plots of numatwin results with matplotlib: a sweep's curves with their 90 % bands, and a
compare's bars with their 90 % intervals. Each function returns the matplotlib Figure (8 x 4.5
inches at 100 dpi: 800 pixels wide); save() writes it atomically.

    >>> import numatwin, numatwin.plot
    >>> s = numatwin.sweep(topology="xeon-gold-6548y-2s", workload="partitioned-aggregation", threads="8:64:8")
    >>> numatwin.plot.save(numatwin.plot.sweep(s), "sweep.png")
"""

from __future__ import annotations

import os
import tempfile
from typing import Any, Mapping, Sequence

WIDTH_IN, HEIGHT_IN, DPI = 8.0, 4.5, 100
# The rate each kind of workload is measured by, as the binary reports it.
_RATES = (("input_mtuples_per_s", "input rate (M tuples/s)"), ("input_gbps", "input rate (GB/s)"))
_SHUFFLE_WORKLOADS = {"shuffle", "migration", "migration-copy"}
# Fields that tell a result's variants apart, in the order a label names them.
_VARIANT_FIELDS = ("workload", "strategy", "join_algorithm", "algorithm", "sync", "placement", "memory_policy")


def _pyplot():
    import matplotlib.pyplot as plt  # imported late: `import numatwin` needs no matplotlib
    return plt


def _rate_field(rows: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    shuffles = all(r.get("workload") in _SHUFFLE_WORKLOADS for r in rows)
    return _RATES[1] if shuffles else _RATES[0]


def _varying(rows: Sequence[Mapping[str, Any]], fields: Sequence[str]) -> list[str]:
    return [f for f in fields if len({str(r.get(f)) for r in rows}) > 1]


def _label(row: Mapping[str, Any], fields: Sequence[str]) -> str:
    return " ".join(str(row.get(f)) for f in fields) or str(row.get("workload", ""))


def _figure(ax):
    if ax is not None:
        return ax.figure, ax
    fig, ax = _pyplot().subplots(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, layout="constrained")
    return fig, ax


def sweep(result: Mapping[str, Any], ax=None, title: str | None = None):
    """One curve per variant (strategy, algorithm, sync: what differs between the rows) of the
    input rate over the thread count; a shaded 90 % band where the sweep sampled the uncertain
    costs (rate_interval), the point prediction as the line."""
    rows = result["runs"]
    if not rows:
        raise ValueError("the sweep has no runs to plot")
    field, unit_label = _rate_field(rows)
    fields = _varying(rows, [f for f in _VARIANT_FIELDS if f != "placement"])
    fig, ax = _figure(ax)
    curves: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        curves.setdefault(_label(row, fields), []).append(row)
    banded = False
    for label, points in curves.items():
        points = sorted(points, key=lambda r: r["threads"])
        threads = [r["threads"] for r in points]
        (line,) = ax.plot(threads, [r[field] for r in points], marker="o", markersize=3, label=label)
        intervals = [r.get("rate_interval") for r in points]
        if all(intervals):
            ax.fill_between(threads, [i["p5"] for i in intervals], [i["p95"] for i in intervals],
                            color=line.get_color(), alpha=0.15, linewidth=0)
            banded = True
    ax.set_xlabel("threads")
    ax.set_ylabel(unit_label)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    note = ", shaded: 90 % interval" if banded else ""
    ax.set_title(title or f"{result.get('topology', '')}: sweep over threads{note}", fontsize=11)
    ax.legend(fontsize=8, ncol=2 if len(curves) > 6 else 1, loc="best")
    return fig


def compare(result: Mapping[str, Any], ax=None, title: str | None = None):
    """One horizontal bar per variant: its input rate, with the 90 % interval (5th to 95th
    percentile) as an error bar where the comparison sampled the uncertain costs."""
    rows = result["runs"]
    if not rows:
        raise ValueError("the comparison has no runs to plot")
    field, unit_label = _rate_field(rows)
    fields = _varying(rows, _VARIANT_FIELDS)
    labels = [_label(r, fields) for r in rows]
    rates = [r[field] for r in rows]
    fig, ax = _figure(ax)
    positions = list(range(len(rows)))[::-1]  # the first variant on top
    ax.barh(positions, rates, color="#4c78a8", height=0.6)
    intervals = [r.get("uncertainty", {}).get(field) for r in rows]
    have = [i for i, interval in enumerate(intervals) if interval]
    if have:
        low = [rates[i] - min(rates[i], intervals[i]["p5"]) for i in have]
        high = [max(rates[i], intervals[i]["p95"]) - rates[i] for i in have]
        ax.errorbar([rates[i] for i in have], [positions[i] for i in have], xerr=[low, high], fmt="none",
                    ecolor="black", capsize=3, linewidth=1, label="90 % interval")
        ax.legend(fontsize=8, loc="lower right")
    ax.set_yticks(positions, labels, fontsize=8)
    ax.set_ylabel(" / ".join(f.replace("_", " ") for f in fields) or "variant")
    ax.set_xlabel(unit_label)
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title(title or f"{result.get('topology', '')}, {result.get('threads', '')} threads", fontsize=11)
    return fig


def save(fig, path: str | os.PathLike) -> None:
    """Writes the figure to `path` (format from its suffix: .png, .svg, .pdf) atomically: to a
    temporary file beside it, then renamed over it."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1] or ".png"
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".numatwin-plot-", suffix=suffix)
    os.close(handle)
    try:
        fig.savefig(temporary, dpi=DPI)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise

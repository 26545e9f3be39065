"""Latency against concurrency as a PNG (matplotlib, headless), and what the soak plots share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

# (summary key, statistic, label, line style); colours follow the server.
SERIES = (
    ("onset_to_speech_started_ms", "p95", "onset → speech_started p95", "-o"),
    ("speech_stopped_to_first_audio_ms", "p95", "speech_stopped → first audio p95", "--s"),
    ("speech_stopped_to_first_audio_ms", "p50", "speech_stopped → first audio p50", ":s"),
    ("ack_ms", "p95", "append → ack p95 (bare aiohttp)", "-^"),
)
COLOURS = ("tab:blue", "tab:orange", "tab:red", "tab:green", "tab:purple", "tab:brown")


def agg_pyplot() -> Any | None:
    """``matplotlib.pyplot`` on the headless Agg backend (files only, no display), or None when
    matplotlib is not installed (it is the optional ``bench`` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def save_panels(plt: Any, fig: Any, axes: Any, title: str, path: Path) -> Path:
    """Finish a figure of stacked panels (each with its legend, upper left, and a light grid) under
    ``title``, write it to ``path`` (PNG) and close it; returns ``path``."""
    for ax in axes:
        ax.legend(loc="upper left", fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_capacity(results: list[dict[str, Any]], path: Path, title: str) -> Path | None:
    """One line per (server, figure) over the levels each server ran, the goals as dashed lines, and each
    server's capacity marked; None if matplotlib is missing."""
    plt = agg_pyplot()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(11, 5.5), dpi=110)
    for colour, result in zip(COLOURS, results, strict=False):
        levels = result["levels"]
        for key, stat, label, style in SERIES:
            points = [(lv["level"], lv[key][stat]) for lv in levels if lv[key][stat] is not None]
            if points:
                xs, ys = zip(*points, strict=True)
                ax.plot(xs, ys, style, color=colour, label=f"{result['name']}: {label}", markersize=4)
        if result.get("capacity_sessions"):
            ax.axvline(result["capacity_sessions"], color=colour, alpha=0.25, linewidth=6)
    ax.axhline(250, color="grey", linestyle="--", linewidth=0.8, label="goal: onset p95 ≤ 250 ms")
    ax.axhline(1000, color="grey", linestyle="-.", linewidth=0.8, label="goal: response start p95 ≤ 1000 ms")
    ax.set_yscale("log")
    ax.set_xlabel(
        "concurrent sessions (each streaming 24 kHz audio in real time, a turn every ~10 s); shaded: capacity"
    )
    ax.set_ylabel("latency (ms, log scale)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path

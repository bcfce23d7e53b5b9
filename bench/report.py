"""Turns run.py's measurements into the summary rows, the printed tables and the chart.

Per framework and workload, the time is the median of every timed sample over
all rounds, and the spread is the lowest and highest of the per-round medians.
A workload's machine limit is its least DRAM traffic over the measured
bandwidth (W1-W3) or its flops over the measured sgemm rate (W4-W7, W9); the
"of limit" column is limit time / numlir time, so 1.0 means numlir runs at the
machine's limit. The FFTs (W8) have none. On a GPU (``--device cuda``) W1-W3's limit is
the GPU's own copy bandwidth (gpu_limits.py) and the others have none; on other devices
nothing is measured of the chip, so no workload has a limit.
"""

from __future__ import annotations

import math
import statistics

LIMIT_RATE = {"copy": ("copy_gbs", 1e9), "read": ("read_gbs", 1e9), "gemm": ("sgemm_gflops", 1e9)}
# Issue 10's workloads, the ones the geometric mean is taken over: not the dispatch row,
# nor G (W7's network again, through the libraries), nor the complex workloads W8-W9
# added later (a mean that changes its members cannot be compared across runs).
ISSUE_10 = {"W1", "W2", "W3", "W4a", "W4b", "W5", "W6", "W7"}
# Issue 40's: issue 10's and the complex ones (its target is a mean of at most 0.6 over them).
ISSUE_40 = ISSUE_10 | {"W8a", "W8b", "W8c", "W9a", "W9b"}


def limit_seconds(workload: dict, rates: dict | None) -> float | None:
    """The least time the workload's traffic or flops take at `rates` (machine.py's keys;
    None or a missing key: no limit)."""
    kind = workload.get("limit")
    if kind not in LIMIT_RATE or not rates:
        return None
    key, scale = LIMIT_RATE[kind]
    rate = rates.get(key)
    if not rate:
        return None
    work = workload["bytes"] if kind in ("copy", "read") else workload["flops"]
    return work / (rate * scale)


def summarize(cell: dict) -> dict:
    """Adds the median and the spread of round medians to one framework's results."""
    rounds = cell.get("rounds", [])
    samples = [s for r in rounds for s in r["samples_s"]]
    if not samples:
        return cell
    medians = [statistics.median(r["samples_s"]) for r in rounds]
    faults = [r["faults_per_call"] for r in rounds]
    cell.update(seconds=statistics.median(samples), best_s=min(samples), round_min_s=min(medians),
                round_max_s=max(medians), faults_per_call=statistics.median(faults))
    return cell


def finish(workload: dict, machine: dict, frameworks: list[str],
           device: str | None = None) -> dict:
    """Summaries, ratios to numlir and the limit: the host's on the CPU, the chip's where
    its limits were measured (``machine["device_limits"]``: a GPU's bandwidth)."""
    results = workload["results"]
    for cell in results.values():
        summarize(cell)
    timed = {f: c["seconds"] for f, c in results.items() if "seconds" in c}
    base = timed.get("numlir")
    workload["ratios"] = {f: base / s for f, s in timed.items() if base and f != "numlir"}
    limit = limit_seconds(workload, machine.get("device_limits") if device else machine)
    workload["limit_s"] = limit
    workload["fraction_of_limit"] = {f: limit / s for f, s in timed.items()} if limit else {}
    peers = {f: s for f, s in timed.items() if f != "numlir"}
    workload["fastest_peer"] = min(peers, key=peers.get) if peers else None
    return workload


def _time(seconds: float | None, unit: str) -> str:
    if seconds is None:
        return "–"
    value = seconds * (1e6 if unit == "us" else 1e3)
    return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def _cell(cell: dict | None, unit: str) -> str:
    if not cell or not cell.get("supported", True):
        return "–"
    if "error" in cell:
        return "error"
    if "seconds" not in cell:
        return "–"
    text = _time(cell["seconds"], unit)
    if cell["round_max_s"] > cell["round_min_s"] * 1.001:
        text += f" ({_time(cell['round_min_s'], unit)}–{_time(cell['round_max_s'], unit)})"
    return text


def _count(value: float) -> str:
    return f"{value:.0f}" if value >= 10 or value == 0 else f"{value:.2g}"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _device_limits(machine: dict) -> str | None:
    gpu = machine.get("device_limits")
    if not gpu:
        return None
    return (f"device: {gpu['gpu']}; copy {gpu['copy_gbs']:.0f} GB/s between two device "
            f"buffers (W1-W3's limit; the host's figures above do not apply)")


def tables(run: dict) -> str:
    """The Markdown tables: times and ratios, then compile time and faults."""
    frameworks = run["frameworks"]
    peers = [f for f in frameworks if f != "numlir"] if "numlir" in frameworks else []
    lines = [_row(["workload", *(f"{f} ms" for f in frameworks),
                   *(f"numlir/{p}" for p in peers), "limit ms", "numlir of limit",
                   "fastest peer", "check"]),
             _row(["---"] * (len(frameworks) + len(peers) + 5))]
    for w in run["workloads"]:
        unit = w.get("unit", "ms")
        res = w["results"]
        ratios = [f"{w['ratios'][p]:.2f}" if p in w["ratios"] else "–" for p in peers]
        frac = w["fraction_of_limit"].get("numlir")
        label = f"{w['name']} {w['title']}" + (" [µs]" if unit == "us" else "")
        lines.append(_row([label, *(_cell(res.get(f), unit) for f in frameworks), *ratios,
                           _time(w["limit_s"], unit),
                           f"{frac:.0%}" if frac is not None else "–",
                           w["fastest_peer"] or "–", w.get("check", "–")]))
    lines += ["", _row(["workload", *(f"compile s {f}" for f in frameworks),
                        *(f"faults/call {f}" for f in frameworks)]),
              _row(["---"] * (1 + 2 * len(frameworks)))]
    for w in run["workloads"]:
        res = w["results"]
        compiles = [f"{res[f]['compile_s']:.3g}" if "compile_s" in res.get(f, {}) else "–"
                    for f in frameworks]
        faults = [_count(res[f]["faults_per_call"]) if "faults_per_call" in res.get(f, {})
                  else "–" for f in frameworks]
        lines.append(_row([w["name"], *compiles, *faults]))
    m = run["machine"]
    lines += ["", "machine: {model}, {threads} threads; copy {copy_gbs:.1f} GB/s, read "
              "{read_gbs:.1f} GB/s, OpenBLAS sgemm {sgemm_gflops:.0f} GFLOP/s, fp32 FMA peak "
              "≈{peak} GFLOP/s (estimate: cores x clock x lanes x 2 pipes x 2)".format(
                  **m, peak=f"{m['peak_gflops_estimate']:.0f}"
                  if m.get("peak_gflops_estimate") else "?"),
              _device_limits(m),
              _first_touch(m),
              _load(run.get("host", {})),
              "times: median of all timed samples (in parentheses: lowest–highest round "
              "median); numlir/peer above 1 means numlir is slower"]
    lines = [line for line in lines if line is not None]
    for label, members in (("W1-W7", ISSUE_10), ("W1-W9", ISSUE_40)):
        geo = [w["ratios"]["jax"] for w in run["workloads"] if "jax" in w["ratios"]
               and w["name"] in members]
        if geo and (members is ISSUE_10 or len(geo) == len(members)):
            lines.append(f"geometric mean numlir/jax over {label} ({len(geo)} workloads): "
                         f"{math.exp(sum(map(math.log, geo)) / len(geo)):.3f}")
    return "\n".join(lines)


def _first_touch(machine: dict) -> str | None:
    if "first_touch_us_per_mib" not in machine:
        return None
    return (f"writing freshly mapped memory costs {machine['first_touch_us_per_mib']:.0f} µs/MiB "
            f"more than mapped memory ({machine['faults_per_mib']:.3g} faults/MiB): the price "
            "of a fresh large malloc per call")


def _load(host: dict) -> str | None:
    loads = [host[k][0] for k in ("loadavg_start", "loadavg") if k in host]
    if not loads:
        return None
    busy = max(loads) > 1.5 * host.get("cpus", 1)
    return (f"1-minute load average at start/end: {' / '.join(f'{x:.1f}' for x in loads)} on "
            f"{host.get('cpus')} cpus" + (": the machine was busy, times are inflated" if busy
                                           else ""))


def chart(run: dict, path) -> str | None:
    """A log-scale bar chart of ms per workload and framework; None when it was drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (make bench installs it): no chart"
    workloads = [w for w in run["workloads"] if w.get("unit", "ms") == "ms"]
    frameworks = run["frameworks"]
    width = 0.8 / max(len(frameworks), 1)
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(workloads)), 4.5))
    for i, f in enumerate(frameworks):
        xs, ys = [], []
        for j, w in enumerate(workloads):
            cell = w["results"].get(f, {})
            if "seconds" in cell:
                xs.append(j + (i - (len(frameworks) - 1) / 2) * width)
                ys.append(cell["seconds"] * 1e3)
        ax.bar(xs, ys, width, label=f)
    ax.set_yscale("log")
    ax.set_xticks(range(len(workloads)), [w["name"] for w in workloads])
    ax.set_ylabel("ms per call (log scale)")
    ax.set_title("numlir and peers, median ms per call (lower is better)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None

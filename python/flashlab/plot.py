"""Plot helpers over results and sweep tables (matplotlib, imported only when called).

Each draws on ``ax`` (or a new figure) and returns the Axes, so they compose in notebooks:

    ax = flashlab.plot.running_waf(result)
    flashlab.plot.waf_by_policy(df, x="workload.theta", policy="ftl.gc")
    flashlab.plot.hit_ratio_vs_buffer(df, size="buffer.dram", policy="buffer.policy")
"""

from __future__ import annotations

from typing import Optional

from . import _flashlab


def _axes(ax):
    if ax is not None:
        return ax
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("flashlab.plot needs matplotlib: pip install matplotlib (or flashlab[plot])") from None
    _fig, ax = plt.subplots()
    return ax


def _names(**columns) -> None:
    """Column-name parameters are strings (``None`` where optional is skipped by the caller)."""
    for param, name in columns.items():
        if not isinstance(name, str):
            raise TypeError(f"{param} must be a column name (a string), not {name!r}")


def _need(df, *columns) -> None:
    """A clear error for a column the table lacks (e.g. a key that was not swept)."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise KeyError(f"no column {', '.join(map(repr, missing))} in the table; its first columns: {list(df.columns[:8])}")


def _bytes(v) -> float:
    """A size column's value in bytes: numbers as they are, strings in the config's units."""
    return float(v) if isinstance(v, (int, float)) else float(_flashlab.parse_size(str(v)))


def running_waf(result, ax=None, label: Optional[str] = None, cumulative: bool = True):
    """WAF per interval (solid) and cumulative (dashed, same colour) over host writes, from a
    ``Result`` or its series. To overlay runs on one ``ax``, give each a ``label`` (the
    default is the config's name, which runs of one preset share)."""
    if label is not None and not isinstance(label, str):
        raise TypeError(f"label must be a string or None, not {label!r}")
    if not isinstance(cumulative, bool):
        raise TypeError(f"cumulative must be True or False, not {cumulative!r}")
    s = result.series if hasattr(result, "series") else result
    _need(s, "host_writes", "running_waf", "cumulative_waf")
    ax = _axes(ax)
    name = label or (result.summary.get("name") if hasattr(result, "summary") else None) or "run"
    (line,) = ax.plot(s["host_writes"], s["running_waf"], label=f"{name} (per interval)")
    if cumulative:
        ax.plot(s["host_writes"], s["cumulative_waf"], linestyle="--", color=line.get_color(),
                label=f"{name} (cumulative)")
    ax.set_xlabel("host page writes")
    ax.set_ylabel("write amplification")
    ax.legend()
    return ax


def waf_by_policy(df, x: Optional[str] = None, policy: str = "ftl.gc", y: str = "waf", ax=None):
    """``y`` (default WAF) by ``policy``: one line per policy over the swept ``x`` column, or
    bars when ``x`` is None (the mean over the other swept keys)."""
    _names(policy=policy, y=y, **({"x": x} if x is not None else {}))
    _need(df, policy, y, *([x] if x is not None else []))
    ax = _axes(ax)
    if x is None:
        means = df.groupby(policy, sort=False)[y].mean()
        ax.bar([str(i) for i in means.index], means.values)
        ax.set_xlabel(policy)
    else:
        for name, group in df.groupby(policy, sort=False):
            g = group.groupby(x, sort=True)[y].mean()
            ax.plot(g.index, g.values, marker="o", label=str(name))
        ax.set_xlabel(x)
        ax.legend(title=policy)
    ax.set_ylabel(y)
    return ax


def hit_ratio_vs_buffer(df, size: str = "buffer.dram", policy: str = "buffer.policy",
                        y: str = "buffer.hit_ratio", ax=None):
    """Buffer hit ratio over buffer size (MiB), one line per buffer policy; sizes may be
    numbers of bytes or strings such as ``"16MiB"``."""
    _names(size=size, policy=policy, y=y)
    _need(df, size, policy, y)
    ax = _axes(ax)
    d = df.assign(_mib=[_bytes(v) / 2**20 for v in df[size]])
    for name, group in d.groupby(policy, sort=False):
        g = group.groupby("_mib", sort=True)[y].mean()
        ax.plot(g.index, g.values, marker="o", label=str(name))
    ax.set_xlabel(f"{size} (MiB)")
    ax.set_ylabel(y)
    ax.legend(title=policy)
    return ax

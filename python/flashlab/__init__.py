"""flashlab: a fast, deterministic, trace-driven NAND flash storage simulator, from Python.

The simulator is the Rust library (the same one the ``flashlab`` command runs); this package
passes it a configuration and turns the results into Python objects and pandas tables.

    import flashlab
    r = flashlab.run("default", overrides={"ftl.gc": "cost-benefit"})
    print(r.waf); r.series.plot(x="host_writes", y="running_waf")

See ``run``, ``sweep``, ``presets``, ``policies``, ``trace_stats`` and ``flashlab.plot``.
"""

from ._flashlab import FlashlabError, __version__
from .api import Result, check_config, policies, presets, run, trace_stats
from .sweep import sweep
from .reproduction import reproduce
from . import plot  # matplotlib is imported only when a plot is drawn
from . import schema  # TypedDicts of results.json and the config (generated)

__all__ = [
    "FlashlabError",
    "Result",
    "__version__",
    "check_config",
    "policies",
    "plot",
    "presets",
    "reproduce",
    "run",
    "schema",
    "sweep",
    "trace_stats",
]

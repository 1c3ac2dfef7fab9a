"""Point runners for the sweep tests (``flashlab.sweep(..., _runner=...)``, a private hook):
each runs its point normally unless the point's seed is ``DIE_SEED``, where it ends its worker
the way a simulator bug would. Top-level functions of an importable module, so process
workers and Ray tasks can unpickle them."""

import faulthandler
import json
import os
import signal

from flashlab import _flashlab
from flashlab.sweep import _run_point

#: The seed of the point that dies.
DIE_SEED = 666


def _seed(args) -> object:
    """The seed a point's arguments set (its grid or override value), if any."""
    _name, _tree, sets = args
    found = None
    for key, value, _label in json.loads(sets):
        if key == "seed":
            found = value
    return found


def _die_at(kind: str, args, token):
    if _seed(args) == DIE_SEED:
        faulthandler.disable()  # pytest's traceback dump of the dying worker is noise here
        if kind == "kill":
            os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's OOM killer does
        _flashlab._die(kind)  # "panic": a Rust panic; "abort": std::process::abort
    return _run_point(args, token)


def panics(args, token=None):
    return _die_at("panic", args, token)


def aborts(args, token=None):
    return _die_at("abort", args, token)


def killed(args, token=None):
    return _die_at("kill", args, token)


RUNNERS = {"panic": panics, "abort": aborts, "kill": killed}


#: The file ``dies_once`` leaves behind (set by the test before the runner is pickled: Ray
#: pickles this module by value, its globals with it).
LOST_ONCE_MARKER = None


def dies_once(args, token=None):
    """Kills its worker the first time any point runs (leaving ``LOST_ONCE_MARKER`` behind),
    then runs normally: a worker lost once, as a cluster may lose one."""
    try:
        fd = os.open(LOST_ONCE_MARKER, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return _run_point(args, token)
    os.close(fd)
    faulthandler.disable()
    os.kill(os.getpid(), signal.SIGKILL)

"""OpenMP threads that sleep when they wait: the CPU default for every coevo entry point.

PyTorch's CPU kernels run on OpenMP (libgomp). By default an idle OpenMP thread spins for about
300,000 iterations before it sleeps, in every wait between two parallel regions. On an idle machine
that saves a wake-up; on a machine where other jobs hold the cores, the spinning thread burns the
time slice that the thread it waits for needs, and every parallel region waits for a descheduled
straggler. Measured here (``bench/throughput/cpu_threads_under_load.py``, the tiny model, 2 cores): with 2
threads, one busy background process slowed an evaluation several-fold while 1 thread did not.
``OMP_WAIT_POLICY=PASSIVE`` makes waiting threads sleep at once, which keeps two threads' idle speed
and loses it far less on a busy machine.

The variable is read when the OpenMP runtime loads, i.e. on ``import torch``; so it is set here, in
``coevo.core``'s package init, which every entry point (``coevo-train``, ``coevo-eval``, the warm
start, the benchmarks run by ``make``) imports before torch. A user's own ``OMP_WAIT_POLICY`` or
``GOMP_SPINCOUNT`` wins (e.g. ``OMP_WAIT_POLICY=ACTIVE`` on a dedicated machine).
"""

from __future__ import annotations

import os

WAIT_POLICY = "PASSIVE"


def prefer_sleeping_threads(environ=os.environ) -> bool:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` unless the user chose a wait policy; ``True`` if set here.

    Has no effect on an OpenMP runtime that is already loaded (torch imported before coevo).
    """
    if "OMP_WAIT_POLICY" in environ or "GOMP_SPINCOUNT" in environ:
        return False
    environ["OMP_WAIT_POLICY"] = WAIT_POLICY
    return True

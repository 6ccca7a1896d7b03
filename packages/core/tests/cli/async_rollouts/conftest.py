"""Ray on the loopback interface only: set before any test module imports Ray (``connect`` does the
same for a local instance of the CLI)."""

import os

from coevo.core.rollout.async_rollouts import LOOPBACK_NODE

os.environ.setdefault(LOOPBACK_NODE, "0")

"""Hosts: the native update sources EVOHEIR explores with (``algo.host=r_zero|grpo``)."""

from coevo.evoheir.hosts.grpo_host import GRPOHost
from coevo.evoheir.hosts.r_zero import RZeroHost

HOSTS = {"r_zero": RZeroHost, "grpo": GRPOHost}

__all__ = ["HOSTS", "GRPOHost", "RZeroHost"]

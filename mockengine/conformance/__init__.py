"""HRP conformance suite: a Realtime GA client that checks any engine (``mockengine conformance``)."""

from .report import CheckResult
from .runner import add_arguments, arun_conformance, run_conformance, run_from_args

__all__ = ["CheckResult", "add_arguments", "arun_conformance", "run_conformance", "run_from_args"]

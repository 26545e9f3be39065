"""What every bench section shares: the parsed options, the engine child process, the results."""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
UTTERANCES = REPO / "tests" / "data" / "utterances"
BENCH_ENGINE_ARGS = ["--first-delta-delay-ms", "0", "--log-level", "WARNING", "--max-sessions", "0"]
COLD_ARGS = ["--tts-cache-mb", "0", "--stt-cache-mb", "0"]


@dataclass
class BenchContext:
    args: argparse.Namespace
    results: dict[str, Any] = field(default_factory=dict)
    _engine: Any = None  # loadtest.processes.Child, started on first use

    def engine(self) -> Any:
        """The engine child process (started once, shared by the sections), or None with ``--url``."""
        if self.args.url or self._engine is not None:
            return self._engine
        from mockengine.loadtest.processes import start_server

        self._engine = asyncio.run(start_server(BENCH_ENGINE_ARGS + self.engine_args))
        return self._engine

    def engine_url(self) -> str:
        return str(self.args.url or self.engine().url)

    @property
    def engine_args(self) -> list[str]:
        return str(self.args.engine_args or "").split()

    def close(self) -> None:
        if self._engine is not None:
            self._engine.stop()

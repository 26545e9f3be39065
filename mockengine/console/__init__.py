"""The console: a page served at ``/`` to talk to the engine and watch it work (docs/console.md)."""

from mockengine.console.routes import add_routes

__all__ = ["add_routes"]

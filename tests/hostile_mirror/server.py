"""The loopback server of the outside suites (tests/hostile_outside/server.py), one copy for both."""

from tests.hostile_outside.server import Answer, LocalServer, trickled

__all__ = ["Answer", "LocalServer", "trickled"]

"""The `gateway` command."""

from gateway.cli.main import main

__all__ = ["main"]

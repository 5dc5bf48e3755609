"""Answers that last as long as their client wants (an event stream, gateway/live/sse.py) mark themselves in
the request's state, so that the metrics time them to their start, not to their end hours later
(gateway/metrics/middleware.py), and a stopping server cuts them instead of waiting for their end, which
never comes by itself (gateway/server/protocol.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.types import Scope

_KEY = "answer_open_ended"


def mark(scope: Scope) -> None:
    scope.setdefault("state", {})[_KEY] = True


def is_open_ended(state: Mapping[str, Any]) -> bool:
    """Whether the request of this state (`scope["state"]`) is answered by an open-ended answer."""
    return bool(state.get(_KEY))

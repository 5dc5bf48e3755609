"""The errors a subscription ends with: one code enum, as every domain has. The transports map them
(gateway/live: a slow consumer's connection is closed with its own code)."""

from __future__ import annotations

from enum import Enum

from graphql import GraphQLError


class LiveErrorCode(Enum):
    INVALID_REQUEST = "invalid_request"  # a `since` that is no cursor of ours
    UNAVAILABLE = "unavailable"  # no live feed in this process (an app built without one)
    SLOW_CONSUMER = "slow_consumer"  # events came faster than the client took them: its buffer overflowed
    GONE = "gone"  # a catalogue cursor older than GATEWAY_CHANGES_RETENTION: read the whole list again


def live_error(code: LiveErrorCode, message: str, *, field: str | None = None) -> GraphQLError:
    extensions: dict[str, object] = {"code": code.value}
    if field is not None:
        extensions["info"] = {"field": field}
    return GraphQLError(message, extensions=extensions)

"""One attempt: the message POSTed to the endpoint, signed per Standard Webhooks, within the timeout.

The signature is the `standardwebhooks` library's own, so that any receiver's off-the-shelf verifier
accepts it; it is made anew for every attempt, with the time of that attempt (verifiers refuse messages
more than five minutes old), while webhook-id and the body stay those of the event.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import math
import ssl
from importlib.metadata import version
from types import TracebackType

import httpx
from standardwebhooks import Webhook

from datasources.webhooks.claims import Claim
from datasources.webhooks.outcomes import MAX_ANSWER, Outcome
from gateway.dispatch.addresses import CheckedTransport, RefusedAddress, UnresolvedName

log = logging.getLogger("gateway.webhooks")

ANSWER_BYTES = 4 * MAX_ANSWER  # read of an answer's body at most (UTF-8 takes up to 4 bytes a character)


class Sender:
    def __init__(
        self,
        *,
        timeout: float,
        concurrency: int,
        allow_private: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.timeout = timeout
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        if transport is None and not allow_private:
            transport = CheckedTransport(limits)  # to allowed addresses only, each one as checked
        self._client = httpx.AsyncClient(
            # Connecting gets part of the attempt: a port that does not answer reads as one that refuses.
            timeout=httpx.Timeout(timeout, connect=timeout / 2),
            # A redirect is an answer like any other non-2xx: the endpoint's URL is the receiver's own.
            follow_redirects=False,
            limits=limits,
            headers={"user-agent": f"erp-shop-gateway/{version('erp-shop-gateway')} (webhooks)"},
            transport=transport,
        )

    async def __aenter__(self) -> Sender:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self._client.aclose()

    async def send(self, claim: Claim) -> Outcome:
        try:
            # The whole attempt, not each read: a receiver that trickles its answer is cut off too.
            async with asyncio.timeout(self.timeout):
                return await self._post(claim)
        except TimeoutError:
            return Outcome(error=f"no answer within {self.timeout:g} s")
        except (RefusedAddress, UnresolvedName) as error:
            return Outcome(error=str(error))
        except (httpx.HTTPError, httpx.InvalidURL, OSError) as error:
            return Outcome(error=_reason(error, self.timeout))
        except Exception as error:
            log.exception("webhook delivery %d: unexpected error", claim.delivery_id)
            return Outcome(error=f"unexpected error: {type(error).__name__}")

    async def _post(self, claim: Claim) -> Outcome:
        headers = signed_headers(claim, dt.datetime.now(dt.UTC))
        async with self._client.stream("POST", claim.url, content=claim.body, headers=headers) as response:
            start = bytearray()
            async for chunk in response.aiter_bytes():
                start += chunk
                if len(start) >= ANSWER_BYTES:
                    break  # the rest is not read: closing the stream drops the connection
        return Outcome(status_code=response.status_code, answer=bytes(start).decode("utf-8", "replace"))


def signed_headers(claim: Claim, now: dt.datetime) -> dict[str, str]:
    signature = Webhook(claim.secret).sign(claim.message_id, now, claim.body.decode())
    return {
        "content-type": "application/json",
        "webhook-id": claim.message_id,
        # The library signs the whole seconds; the header must name the same second.
        "webhook-timestamp": str(math.floor(now.timestamp())),
        "webhook-signature": signature,
    }


def _reason(error: BaseException, timeout: float) -> str:
    """What an operator needs to know, and no more: whether a port refused, was closed or did not answer
    is not told apart (an admin's URL must not be a port scanner), nor any address or system message."""
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout):
        tls = _tls_reason(error)
        return f"TLS handshake failed: {tls}" if tls else "could not connect"
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return "the connection broke before a complete answer"
    if isinstance(error, httpx.TimeoutException):
        return f"no answer within {timeout:g} s"
    return f"failed: {type(error).__name__}"


def _tls_reason(error: BaseException) -> str | None:
    # A certificate the receiver's name does not match, or no CA vouches for: the ssl module's reason.
    link: BaseException | None = error
    for _ in range(8):  # a chain is short; bounded all the same
        if link is None:
            return None
        if isinstance(link, ssl.SSLError):
            return getattr(link, "verify_message", None) or link.reason or "unknown"
        link = link.__cause__ or link.__context__
    return None

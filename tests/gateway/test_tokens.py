"""A valid token is decoded once and remembered until it expires; the memory is bounded."""

from __future__ import annotations

import time
from typing import Any

import pytest
from joserfc import jwt

from datasources.users import TokenVersion
from gateway.auth import tokens
from gateway.auth.tokens import InvalidToken, TokenIssuer

KEY = "a-test-key-that-is-long-enough-for-hs256-0123456789"
VERSION = TokenVersion(0, 0)


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    decode = jwt.decode

    def counted(token: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(token)
        return decode(token, *args, **kwargs)

    monkeypatch.setattr(jwt, "decode", counted)
    return seen


def test_a_valid_token_is_decoded_once(decodes: list[str]) -> None:
    issuer = TokenIssuer(KEY, 60)
    issued = int(time.time())
    token = issuer.issue("shop", ("shop", "catalogue"), VERSION)

    claims = [issuer.verify(token) for _ in range(3)]

    assert claims[0] == claims[2]
    expected = [
        tokens.TokenClaims("shop", ("shop", "catalogue"), VERSION, at, at + 60.0) for at in (issued, issued + 1)
    ]
    assert claims[0] in expected
    assert decodes == [token]


def test_a_remembered_token_is_refused_once_it_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    issuer = TokenIssuer(KEY, 60)
    token = issuer.issue("shop", ("shop",), VERSION)
    assert issuer.verify(token).subject == "shop"

    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + 61)
    with pytest.raises(InvalidToken):
        issuer.verify(token)


def test_invalid_tokens_are_not_remembered(decodes: list[str]) -> None:
    issuer = TokenIssuer(KEY, 60)
    forged = TokenIssuer("another-key-that-is-long-enough-for-hs256-0123456789", 60).issue("x", (), VERSION)
    for _ in range(2):
        with pytest.raises(InvalidToken):
            issuer.verify(forged)
    assert decodes == [forged, forged]


def test_the_least_recently_used_token_is_forgotten(decodes: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "REMEMBERED_TOKENS", 2)
    issuer = TokenIssuer(KEY, 60)
    first, second, third = (issuer.issue(name, ("shop",), VERSION) for name in ("a", "b", "c"))
    for token in (first, second, first, third, first, second):
        issuer.verify(token)
    # `second` was the least recently used when `third` came; `first` was kept by its use.
    assert decodes == [first, second, third, second]

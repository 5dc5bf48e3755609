"""The server's garbage-collector settings, applied by the worker's app factory."""

from __future__ import annotations

import gc

import pytest
from starlette.applications import Starlette

from gateway import app as gateway_app
from gateway.collector import GEN0_THRESHOLD
from gateway.settings import Settings


def test_the_server_app_freezes_the_startup_heap_and_raises_the_first_threshold(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    calls: list[object] = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "set_threshold", lambda *thresholds: calls.append(thresholds))
    monkeypatch.setattr(gc, "get_threshold", lambda: (700, 10, 10))
    monkeypatch.setattr(Settings, "from_env", classmethod(lambda cls: settings))
    app = gateway_app.create_server_app()
    assert isinstance(app, Starlette)
    assert calls == ["freeze", (GEN0_THRESHOLD, 10, 10)]

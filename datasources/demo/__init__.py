"""Deterministic demo data: a catalogue and customers that exercise every catalogue rule."""

from datasources.demo.fill import fill_demo

__all__ = ["fill_demo"]

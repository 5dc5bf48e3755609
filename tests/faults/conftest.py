"""Fault tests start real servers of their own (each test needs its own faults)."""

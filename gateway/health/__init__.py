"""Probes for an orchestrator or a load balancer: GET /healthz (the process answers) and GET /readyz (its
database answers and is migrated to this code's head). Neither needs a token."""

from gateway.health.routes import routes

__all__ = ["routes"]

"""The browser pages: GraphiQL (its files fetched at build time, gateway/ui/fetch.py), Swagger UI and `/`."""

from gateway.ui.routes import routes

__all__ = ["routes"]

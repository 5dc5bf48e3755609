"""What one request may ask for: the limit values, and the linear-time checks of a GraphQL document."""

from schema.limits.values import DocumentLimits, RequestLimits

__all__ = ["DocumentLimits", "RequestLimits"]

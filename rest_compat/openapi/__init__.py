"""The OpenAPI 3.1 document of /www, generated from the REST shapes the routes use."""

from rest_compat.openapi.document import openapi_30_json, openapi_document, openapi_json

__all__ = ["openapi_30_json", "openapi_document", "openapi_json"]

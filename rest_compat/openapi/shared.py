"""The ISO code lists (languages, countries, currencies) once in `components.schemas`, referenced where a
field or parameter takes one: written out at each of some forty places they made the document 2.1 MB, and
Swagger UI slow to load."""

from __future__ import annotations

from typing import Any

from rest_compat.openapi.schemas import code_values

KINDS = {"LanguageCode": "language", "CountryCode": "country", "CurrencyCode": "currency"}


def share_code_lists(paths: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The paths with every code list replaced by a `$ref`, and the schemas they refer to."""
    lists = {tuple(code_values(kind, required=True)): name for name, kind in KINDS.items()}
    shared: dict[str, Any] = {}

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        enum = node.get("enum")
        name = lists.get(tuple(value for value in enum if value not in ("", None))) if enum else None
        if name is None:
            return {key: walk(value) for key, value in node.items()}
        assert enum is not None
        shared[name] = {"type": "string", "enum": list(code_values(KINDS[name], required=True))}
        # "" (an empty query parameter, or text that counts as not given) and null beside the list, which is
        # written out once.
        extra = [{"const": ""}] * ("" in enum) + [{"type": "null"}] * (None in enum)
        if extra:
            name += "OrEmpty" * ("" in enum) + "OrNull" * (None in enum)
            shared[name] = {"anyOf": [{"$ref": f"#/components/schemas/{name.split('Or')[0]}"}, *extra]}
        # The type stays beside the reference: readers that do not follow it still see a string.
        return {**{key: value for key, value in node.items() if key != "enum"}, "$ref": f"#/components/schemas/{name}"}

    return walk(paths), dict(sorted(shared.items()))

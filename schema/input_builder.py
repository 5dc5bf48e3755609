"""Building a document's input value (DocumentInput) from what graphql-core coerced, with each input type's
fields looked at once.

Strawberry converts an argument field by field, and for every field of every input object of every request it
works out the field's GraphQL name (a camel-case conversion) and its type again: about 200 µs for an order of
three positions, as much as one of its SQL statements. An input type may build its own value instead
(`StrawberryObjectDefinition.from_input`, Strawberry's hook for such integrations); this one does what
Strawberry's conversion does, from a plan per type made at the first request: a field the client sent gets
its value (null as None, a list as a new list, a nested input object built the same way), an unsent one
keeps its default (UNSET). It takes input types whose fields are built-in scalars, input objects and lists
of them (which need no conversion that could fail); any other field is refused when the plan is made.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from strawberry.types.arguments import InputContext
from strawberry.types.base import StrawberryList, StrawberryOptional, get_object_definition, has_object_definition

_LEAVES = (str, int, float, bool)  # graphql-core's coerced value is the Python value
# A field's value from what the client sent: (that, the input's context, the field's GraphQL name) -> value.
Convert = Callable[[Any, InputContext, str], Any]
Plan = tuple[tuple[str, str, Convert], ...]  # (GraphQL name, Python name, convert) per field
_PLANS: dict[type, Plan] = {}


def builds_itself(cls: type) -> type:
    """Makes the input type build its values with `build` (a class decorator, under @strawberry.input)."""
    get_object_definition(cls, strict=True).from_input = build
    return cls


def build(cls: type, value: Mapping[str, Any], context: InputContext) -> Any:
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _plan(cls, context)
    return cls(**{name: convert(value[key], context, key) for key, name, convert in plan if key in value})


def _plan(cls: type, context: InputContext) -> Plan:
    definition = get_object_definition(cls, strict=True)
    return tuple(
        (
            context.config.name_converter.from_field(field),
            field.python_name,
            _converter(field.resolve_type(type_definition=definition)),
        )
        for field in definition.fields
    )


def _converter(type_: Any) -> Convert:
    inner = type_.of_type if isinstance(type_, StrawberryOptional) else type_
    if inner in _LEAVES:
        return _as_sent
    if isinstance(inner, type) and has_object_definition(inner) and get_object_definition(inner, strict=True).is_input:
        return _object(inner)
    if isinstance(inner, StrawberryList):
        item = _converter(inner.of_type)
        if item is _as_sent:
            return _copied
        return lambda value, context, key: None if value is None else [item(v, context, key) for v in value]
    raise TypeError(f"an input field of type {type_} is left to Strawberry's conversion")


def _as_sent(value: Any, context: InputContext, key: str) -> Any:
    return value


def _copied(value: Any, context: InputContext, key: str) -> Any:
    # A new list, as Strawberry makes: graphql-core hands every request that omits a value the same default.
    return None if value is None else list(value)


def _object(cls: type) -> Convert:
    from_input = get_object_definition(cls, strict=True).from_input
    if from_input is not None and from_input is not build:
        raise TypeError(f"{cls.__name__} builds its values its own way")
    return lambda value, context, key: None if value is None else build(cls, value, context)

"""A shape's reshaping as one generated function: GraphQL result -> the specification's object.

A 1000-article page reshapes some 15,000 objects. Walking a shape's entries in a loop costs, per entry,
the tuple unpacking and the branches on its kind; a function written for the shape reads each GraphQL
field once and builds the REST object in its field order, in one dict expression up to the first field
that may be left out:

    def reshape(obj, base):
        out = {"ArtNr": obj["number"], "AnLager": (_call1(v)) if (v := obj["stockManaged"]) is not None else None}
        v = obj["prices"]
        if v is not None:
            out["Preis"] = [_shape2(item, base) for item in v] if v.__class__ is list else _shape2(v, base)
        return out

The rules are Shape's (shapes.py): null stays null, or is left out (`omit_null`), or becomes the record
with every field null (`null_record`); a nested shape reshapes each item of a list, or the one object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

Reshape = Callable[[Mapping[str, Any], str], dict[str, Any]]

FIELD, LINKS, GROUP = 0, 1, 2  # the kinds of a shape's entries


class Step(NamedTuple):
    """A shape's entry, flattened: the REST field and how it is made."""

    name: str
    kind: int
    source: str  # FIELD: the GraphQL field
    call: Callable[..., Any] | None  # FIELD: its convert; LINKS: the links builder (object, base URL)
    omit_null: bool
    shape: Reshape | None  # FIELD: its nested shape's function, GROUP: the group's
    null_record: tuple[str, ...] | None  # FIELD: null is sent as the record with these fields, all null


def reshaper(steps: Sequence[Step]) -> Reshape:
    """The function reshaping a GraphQL object by `steps`, in their order (named by its first REST fields, for
    tracebacks and profiles)."""
    namespace: dict[str, Any] = {}
    literal: list[str] = []  # entries of the opening dict expression
    statements: list[str] = []  # the entries after the first that may be left out
    for index, (name, kind, source, call, omit_null, shape, null_record) in enumerate(steps):
        namespace[f"_call{index}"], namespace[f"_shape{index}"], namespace[f"_empty{index}"] = call, shape, null_record
        if kind == LINKS:
            _add(literal, statements, name, f"_call{index}(obj, base)")
            continue
        if kind == GROUP:
            _add(literal, statements, name, f"_shape{index}(obj, base)")
            continue
        value = f"obj[{source!r}]"
        if shape is not None:
            done = f"[_shape{index}(item, base) for item in v] if v.__class__ is list else _shape{index}(v, base)"
        elif call is not None:
            done = f"_call{index}(v)"
        else:
            done = "v"
        if omit_null:
            statements += [f"    v = {value}", "    if v is not None:", f"        out[{name!r}] = {done}"]
            continue
        null = "None" if null_record is None else f"dict.fromkeys(_empty{index})"
        if done == "v":
            _add(literal, statements, name, value)
        else:
            _add(literal, statements, name, f"({done}) if (v := {value}) is not None else {null}")
    lines = ["def reshape(obj, base):", "    out = {" + ", ".join(literal) + "}", *statements, "    return out"]
    code = compile("\n".join(lines), f"<reshape {','.join(step.name for step in steps[:3])}>", "exec")
    exec(code, namespace)  # noqa: S102 (the text is made of the shape's names)
    reshape: Reshape = namespace["reshape"]
    return reshape


def _add(literal: list[str], statements: list[str], name: str, expression: str) -> None:
    if statements:  # after a field that may be left out, the order of the fields is kept by assignment
        statements.append(f"    out[{name!r}] = {expression}")
    else:
        literal.append(f"{name!r}: {expression}")

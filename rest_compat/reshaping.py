"""A shape's reshaping as one generated function: GraphQL result -> the specification's object.

A 1000-article page reshapes some 15,000 objects, so the work per object is written out once per shape
instead of walking its entries in a loop. Two ways:

- In place (`fixer`): the route asked for every REST field under its REST name (a GraphQL alias, in the
  specification's order; `links` holds the place of the links), so the GraphQL object already is the REST
  object but for the entries that convert, drop a null, nest or link. Only those are touched:

      def reshape(obj, base):
          v = obj['AnLager']
          if v is not None:
              obj['AnLager'] = _call1(v)
          obj['links'] = _call13(base, obj['ArtNr'])
          v = obj['Preis']
          if v is None:
              del obj['Preis']
          elif v.__class__ is list:
              for item in v:
                  _shape18(item, base)
          else:
              _shape18(v, base)
          return obj

- Rebuilt (`reshaper`): for a shape that gathers fields into objects of its own (`Group`), which no alias can
  express: a new dict in one expression up to the first field that may be left out, read by GraphQL names.

The rules are Shape's (shapes.py): null stays null, or is left out (`omit_null`), or becomes the record
with every field null (`null_record`); a nested shape reshapes each item of a list, or the one object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

Reshape = Callable[[Mapping[str, Any], str], dict[str, Any]]
Fixup = Callable[[dict[str, Any], str], dict[str, Any]]

FIELD, LINKS, GROUP = 0, 1, 2  # the kinds of a shape's entries


class Step(NamedTuple):
    """A shape's entry, flattened: the REST field and how it is made."""

    name: str
    kind: int
    keys: tuple[str, ...]  # FIELD: the key of its value; LINKS: the keys of the values its builder takes
    call: Callable[..., Any] | None  # FIELD: its convert; LINKS: the links builder (base URL, *values)
    omit_null: bool
    shape: Callable[[Any, str], dict[str, Any]] | None  # FIELD: its nested shape's function, GROUP: the group's
    null_record: tuple[str, ...] | None  # FIELD: null is sent as the record with these fields, all null


def fixer(steps: Sequence[Step], hidden: Sequence[str]) -> Fixup | None:
    """The function making a GraphQL object asked for by REST names the REST object, in place: `steps` in
    their order, then the `hidden` keys (values only the links needed) removed. None when there is nothing
    to do."""
    namespace: dict[str, Any] = {}
    lines: list[str] = []
    for index, (name, kind, keys, call, omit_null, shape, null_record) in enumerate(steps):
        namespace[f"_call{index}"], namespace[f"_shape{index}"], namespace[f"_empty{index}"] = call, shape, null_record
        if kind == LINKS:
            lines.append(f"    obj[{name!r}] = _call{index}(base{_values(keys)})")
            continue
        if kind != FIELD:
            raise ValueError(f"{name}: a group cannot be made in place")
        null = None
        if omit_null:
            null = f"del obj[{name!r}]"
        elif null_record is not None:
            null = f"obj[{name!r}] = dict.fromkeys(_empty{index})"
        if shape is not None:
            done = [
                "if v.__class__ is list:",
                "    for item in v:",
                f"        _shape{index}(item, base)",
                "else:",
                f"    _shape{index}(v, base)",
            ]
        elif call is not None:
            done = [f"obj[{name!r}] = _call{index}(v)"]
        else:
            done = []
        if null is None and not done:
            continue  # the alias made it already
        lines.append(f"    v = obj[{name!r}]")
        if null is None:
            lines += ["    if v is not None:", *(f"        {line}" for line in done)]
        elif not done:
            lines += ["    if v is None:", f"        {null}"]
        else:
            lines += ["    if v is None:", f"        {null}", "    else:", *(f"        {line}" for line in done)]
    lines += [f"    del obj[{key!r}]" for key in hidden]
    if not lines:
        return None
    fixup: Fixup = _compiled(["def reshape(obj, base):", *lines, "    return obj"], steps, namespace)
    return fixup


def reshaper(steps: Sequence[Step]) -> Reshape:
    """The function reshaping a GraphQL object into a new dict by `steps`, in their order."""
    namespace: dict[str, Any] = {}
    literal: list[str] = []  # entries of the opening dict expression
    statements: list[str] = []  # the entries after the first that may be left out
    for index, (name, kind, keys, call, omit_null, shape, null_record) in enumerate(steps):
        namespace[f"_call{index}"], namespace[f"_shape{index}"], namespace[f"_empty{index}"] = call, shape, null_record
        if kind == LINKS:
            _add(literal, statements, name, f"_call{index}(base{_values(keys)})")
            continue
        if kind == GROUP:
            _add(literal, statements, name, f"_shape{index}(obj, base)")
            continue
        value = f"obj[{keys[0]!r}]"
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
    reshape: Reshape = _compiled(lines, steps, namespace)
    return reshape


def _values(keys: Sequence[str]) -> str:
    return "".join(f", obj[{key!r}]" for key in keys)


def _add(literal: list[str], statements: list[str], name: str, expression: str) -> None:
    if statements:  # after a field that may be left out, the order of the fields is kept by assignment
        statements.append(f"    out[{name!r}] = {expression}")
    else:
        literal.append(f"{name!r}: {expression}")


def _compiled(lines: list[str], steps: Sequence[Step], namespace: dict[str, Any]) -> Any:
    """The generated `reshape`, named by its first REST fields for tracebacks and profiles."""
    code = compile("\n".join(lines), f"<reshape {','.join(step.name for step in steps[:3])}>", "exec")
    exec(code, namespace)  # noqa: S102 (the text is made of the shape's names)
    return namespace["reshape"]

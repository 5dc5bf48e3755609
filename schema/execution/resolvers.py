"""How a compiled plan gets a field's value: the cheapest call that gives what Strawberry would give.

- A field without resolver, permission or extension: attribute access (`operator.attrgetter`), which is
  what Strawberry's default resolver (`getattr`) does.
- A field with a resolver and no field extension: the resolver function itself, with exactly the
  parameters it declares (self/root/parent as the source, `info` only when it asks for one, its GraphQL
  arguments converted by Strawberry's own `convert_arguments`).
- Anything else (permission classes, field extensions): Strawberry's complete graphql-core resolver,
  called as graphql-core calls it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from graphql import FieldNode, GraphQLField, GraphQLObjectType
from graphql.execution.values import get_argument_values
from graphql.pyutils import Path
from strawberry.types import Info
from strawberry.types.arguments import convert_arguments
from strawberry.types.field import StrawberryField

from schema.execution.errors import Unsupported
from schema.execution.plan import Resolve

if TYPE_CHECKING:
    from strawberry.schema import Schema as StrawberrySchema

    from schema.execution.run import Run

DEFINITION = "strawberry-definition"  # where Strawberry keeps a GraphQL field's StrawberryField


@dataclass(frozen=True, slots=True)
class FieldSite:
    """A field as selected at one place of an operation: what graphql-core's resolve info is built from."""

    field_def: GraphQLField
    nodes: list[FieldNode]
    parent_type: GraphQLObjectType

    @property
    def strawberry_field(self) -> StrawberryField | None:
        field = (self.field_def.extensions or {}).get(DEFINITION)
        return field if isinstance(field, StrawberryField) else None

    @property
    def field_name(self) -> str:
        return self.nodes[0].name.value

    @property
    def has_arguments(self) -> bool:
        return bool(self.field_def.args or self.nodes[0].arguments)

    def raw_info(self, run: Run, path: Path) -> Any:
        return run.executor.build_resolve_info(self.field_def, self.nodes, self.parent_type, path)

    def raw_arguments(self, run: Run) -> dict[str, Any]:
        if not self.has_arguments:
            return {}
        executor = run.executor
        return get_argument_values(
            self.field_def, self.nodes[0], executor.variable_values, None, executor.hide_suggestions
        )


def attribute_getter(site: FieldSite, schema: StrawberrySchema) -> Callable[[Any], Any] | None:
    """The getter of a field Strawberry resolves by its default resolver alone; None for any other."""
    field = site.strawberry_field
    if field is None or not field.is_basic_field or site.has_arguments:
        return None
    name = field.python_name
    default = schema.config.default_resolver
    if default is getattr:
        return operator.attrgetter(name)
    return lambda source: default(source, name)


def attribute_name(site: FieldSite, schema: StrawberrySchema) -> str | None:
    """The attribute a field's getter reads by name: for inline access (builders.py); None when the
    schema's default resolver is not getattr."""
    field = site.strawberry_field
    if field is None or schema.config.default_resolver is not getattr or not field.python_name.isidentifier():
        return None
    return field.python_name


def resolver(site: FieldSite, schema: StrawberrySchema) -> tuple[Resolve, bool]:
    """(resolve, always awaitable) for a field that is not a plain attribute."""
    field = site.strawberry_field
    if field is None:
        raise Unsupported(f"{site.parent_type.name}.{site.nodes[0].name.value} is not a Strawberry field")
    if field.base_resolver is None or field.extensions:
        return _graphql_core_resolver(site), False
    return _direct_resolver(site, field, schema), field.base_resolver.is_async


def _graphql_core_resolver(site: FieldSite) -> Resolve:
    resolve = site.field_def.resolve
    if resolve is None:
        raise Unsupported("a field without resolver")

    def call(source: Any, run: Run, path: Path) -> Any:
        return resolve(source, site.raw_info(run, path), **site.raw_arguments(run))

    return call


def _direct_resolver(site: FieldSite, field: StrawberryField, schema: StrawberrySchema) -> Resolve:
    base = field.base_resolver
    assert base is not None
    func = base.wrapped_func
    if not callable(func):
        raise Unsupported("an uncallable resolver")
    # Strawberry's get_arguments: self positionally; root, parent and info by their declared names.
    takes_self = base.self_parameter is not None
    source_names = tuple(p.name for p in (base.root_parameter, base.parent_parameter) if p is not None)
    info_name = base.info_parameter.name if base.info_parameter is not None else None
    arguments = field.arguments if site.has_arguments else None
    info_class = schema.config.info_class
    config, scalars = schema.config, schema.schema_converter.scalar_registry

    def info_for(run: Run, path: Path) -> Info[Any, Any]:
        if info_class is Info:
            return DeferredInfo(site, run, path, field)
        return info_class(_raw_info=site.raw_info(run, path), _field=field)

    def call(source: Any, run: Run, path: Path) -> Any:
        info = info_for(run, path) if info_name is not None or arguments is not None else None
        kwargs: dict[str, Any] = (
            {} if arguments is None else convert_arguments(site.raw_arguments(run), arguments, scalars, config, info)
        )
        for name in source_names:
            kwargs[name] = source
        if info_name is not None:
            kwargs[info_name] = info
        return func(source, **kwargs) if takes_self else func(**kwargs)

    return call


class DeferredInfo(Info[Any, Any]):
    """Strawberry's Info, with graphql-core's resolve info built only when something reads it.

    Most resolvers read nothing but `info.context`; building the resolve info (a 16-field tuple) for each
    of a page's thousands of resolver calls is then wasted. Everything else reads `_raw_info` as usual.
    """

    def __init__(self, site: FieldSite, run: Run, path: Path, field: StrawberryField) -> None:
        self._field = field
        self._site = site
        self._run = run
        self._path = path

    @cached_property
    def _raw_info(self) -> Any:  # type: ignore[override]
        return self._site.raw_info(self._run, self._path)

    @property
    def context(self) -> Any:
        return self._run.executor.context_value

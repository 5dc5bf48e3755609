"""Hypothesis strategies for random query documents over the Query type of the real schema.

The builder walks graphql-core's schema (`Schema._schema`), so every field reachable from Query can come up,
with aliases, named and inline fragments, @skip/@include, literals and variables. Documents are valid by
construction, never filtered:
- one registry per object type maps each response key to one (field, arguments) pair, so any two
  selections of a key, fragments included, can be merged;
- aliases are counted the way MaxAliasesLimiter counts them: a fragment's once per spread;
- a variable is declared where it is first used, with the type of that position (or the type made nullable
  where the argument has a default); only nullable or defaulted variables are ever left out.
Argument values come from the given `Domains` (real rows most of the time, now and then misses, and values
answered with an error); fields whose data can fail (`failing`: a value the scalar cannot represent) are
selected like any other. Which failures may meet in one document is kept to what graphql-core answers the
same way whatever the timing (see `_Builder.may_fail_at`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    Undefined,
    get_named_type,
    is_leaf_type,
)
from hypothesis import strategies as st

from schema.schema import MAX_ALIASES

# Fields per document: enough for a few root fields with nested selections, far below MAX_TOKENS.
FIELD_BUDGET = 36


@dataclass(frozen=True)
class Document:
    text: str
    variables: dict[str, Any]
    features: frozenset[str]  # what the document exercises, for the generator's own test


# Fields whose value is new every time they are read, so two runs of one document cannot compare equal: the
# change feed's cursor carries PostgreSQL's snapshot of the moment.
UNSTABLE = frozenset({("ArticleChanges", "cursor")})


@dataclass(frozen=True)
class Domain:
    """The values of one argument: real rows, misses answered with null, and values that may be answered with
    an error (drawn by one field per document at most)."""

    hits: Sequence[Any]
    misses: Sequence[Any] = ()
    failures: Sequence[Any] = ()
    miss: int = 10  # percent of the draws
    fail: int = 5


# Arguments by (field, argument) or input fields by (input type, field); others get generic values.
Domains = Mapping[tuple[str, str], Domain]


def documents(
    schema: GraphQLSchema,
    domains: Domains,
    failing: frozenset[tuple[str, str]] = frozenset(),
    refused: frozenset[str] = frozenset(),
) -> st.SearchStrategy[Document]:
    """Documents over `schema`'s Query; `failing`: (type, field) pairs whose data may be answered with an error;
    `refused`: root fields the user is refused, each a failure as a failing argument is."""

    @st.composite
    def build(draw: st.DrawFn) -> Document:
        return _Builder(draw, schema, domains, failing, refused).document()

    return build()


_GENERIC: dict[str, st.SearchStrategy[Any]] = {
    "Int": st.integers(0, 3),
    "Float": st.sampled_from([0.0, 1.5, 10.0]),
    "Boolean": st.booleans(),
    "String": st.just("x"),
}


@dataclass
class _Variable:
    type: str
    value: Any
    default: str | None
    given: bool
    key: tuple[str, str] | None  # the argument it was made for; None: a @skip/@include condition
    failing: bool  # made while its field drew a failure: not to be used by a second field


@dataclass(frozen=True)
class _Fragment:
    name: str
    type_name: str
    aliases: int  # as MaxAliasesLimiter counts them for one spread: nested spreads included


class _Builder:
    def __init__(
        self,
        draw: st.DrawFn,
        schema: GraphQLSchema,
        domains: Domains,
        failing: frozenset[tuple[str, str]],
        refused: frozenset[str] = frozenset(),
    ) -> None:
        self.draw = draw
        self.schema = schema
        self.domains = domains
        self.failing = failing
        self.refused = refused
        self.keys: dict[str, dict[str, tuple[str, str]]] = {}  # type -> response key -> (field, arguments)
        self.variables: dict[str, _Variable] = {}
        self.fragments: list[_Fragment] = []
        self.definitions: list[str] = []
        self.building: set[str] = set()  # fragments whose bodies are being built: not to be spread in them
        self.aliases = 0
        self.names = 0
        # graphql-core reports errors in the order they arrive, and of several that null the same position
        # only the first: when a non-null root field fails after its query (nulling `data`), which of the
        # other failures arrived before it depends on timing. So such a failure is the document's only one;
        # failures at nullable root fields (each nulls only itself) and data failures may be many. Only root
        # fields draw failing arguments (a nested field runs once per parent object).
        self.failures = 0  # fields that drew failing arguments
        self.strict_failure = False  # one of them is a non-null root field
        self.data_failure = False  # a field whose data may fail is selected
        self.may_fail = False  # the field whose arguments are being drawn may draw a failure
        self.failed = False  # and has drawn one
        self.budget = FIELD_BUDGET
        self.features: set[str] = set()

    def chance(self, percent: int) -> bool:
        # Shrinks towards False, so a minimal failing document uses as few features as it can.
        return self.draw(st.integers(0, 99)) >= 100 - percent

    def fresh(self, prefix: str) -> str:
        self.names += 1
        return f"{prefix}{self.names}"

    def document(self) -> Document:
        query = self.schema.query_type
        assert query is not None
        body = self.selection_set(query)
        if self.variables or self.chance(40):
            declared = ", ".join(
                f"${name}: {v.type}" + (f" = {v.default}" if v.default is not None else "")
                for name, v in self.variables.items()
            )
            name = " Random" if self.chance(50) else ""
            body = f"query{name}" + (f"({declared}) " if declared else " ") + body
        text = "\n".join(self.draw(st.permutations([body, *self.definitions])))
        values = {name: v.value for name, v in self.variables.items() if v.given}
        return Document(text, values, frozenset(self.features))

    # Selections

    def selection_set(self, type_: GraphQLObjectType) -> str:
        count = 1 if self.budget <= 0 else self.draw(st.integers(1, 4))
        return "{ " + " ".join(self.selection(type_) for _ in range(count)) + " }"

    def selection(self, type_: GraphQLObjectType) -> str:
        roll = self.draw(st.integers(0, 99))
        if roll >= 90 and self.budget > 0:
            return self.spread(type_)
        if roll >= 81 and self.budget > 0:
            return self.inline(type_)
        if roll >= 75:
            return self.typename(type_)
        return self.field(type_)

    def field(self, type_: GraphQLObjectType) -> str:
        fields = type_.fields
        names = sorted(name for name in fields if (type_.name, name) not in UNSTABLE)
        if self.strict_failure:
            names = [name for name in names if (type_.name, name) not in self.failing]
        if type_ is self.schema.query_type:  # a refused field fails: only where a failure may be drawn
            names = [name for name in names if name not in self.refused or self.may_fail_at(type_, fields[name])]
        if self.budget <= 0:
            names = [name for name in names if is_leaf_type(get_named_type(fields[name].type))]
        if not names:
            return self.typename(type_)
        # Objects half the time, though most fields are leaves: the deep paths are where plans nest.
        objects = [name for name in names if not is_leaf_type(get_named_type(fields[name].type))]
        failing = [name for name in names if (type_.name, name) in self.failing]
        if objects and len(objects) < len(names) and self.chance(50):
            names = objects
        elif failing and self.chance(50):
            names = failing  # a field whose data may fail: often, or few documents would reach one
        name = self.draw(st.sampled_from(names))
        self.budget -= 1
        self.features.add(f"{type_.name}.{name}")
        if (type_.name, name) in self.failing:
            self.data_failure = True
            self.features.add("data failure")
        if type_ is self.schema.query_type and name in self.refused:
            self.failures += 1
            self.strict_failure = self.strict_failure or isinstance(fields[name].type, GraphQLNonNull)
            self.features.add("refused field")
        registry = self.keys.setdefault(type_.name, {})
        same = [k for k, (f, _) in registry.items() if f == name and (k == name or self.aliases < MAX_ALIASES)]
        if self.aliases >= MAX_ALIASES and name in registry:
            # No alias left: only the plain key's own field and arguments can go there (decided before any
            # argument declares a variable that would then go unused).
            if registry[name][0] != name:
                return self.typename(type_)
            key, arguments = name, registry[name][1]
        elif same and self.chance(30):
            key = self.draw(st.sampled_from(same))
            arguments = registry[key][1]
            self.features.add("merged key")
        else:
            self.failed, self.may_fail = False, self.may_fail_at(type_, fields[name])
            arguments = self.arguments(name, fields[name])
            if self.failed:
                self.failures += 1
                self.strict_failure = isinstance(fields[name].type, GraphQLNonNull)
                self.features.add("failing field")
                if self.failures > 1:
                    self.features.add("several failing fields")
                if self.strict_failure:
                    self.features.add("failing non-null field")
            key = self.new_key(type_, name, arguments)
            if any(f == name and a != arguments for f, a in registry.values()):
                self.features.add("field twice with different arguments")
            registry[key] = (name, arguments)
        alias = ""
        if key != name:
            alias = f"{key}: "
            self.aliases += 1
            self.features.add("alias")
        selection = f"{alias}{name}{arguments}{self.directives()}"
        named = get_named_type(fields[name].type)
        if isinstance(named, GraphQLObjectType):
            selection += " " + self.selection_set(named)
        return selection

    def may_fail_at(self, type_: GraphQLObjectType, field: GraphQLField) -> bool:
        if type_ is not self.schema.query_type or self.strict_failure:
            return False
        if isinstance(field.type, GraphQLNonNull):  # it would null `data`: only when it is the only failure
            return not self.failures and not self.data_failure
        return True

    def new_key(self, type_: GraphQLObjectType, name: str, arguments: str) -> str:
        registry = self.keys[type_.name]
        plain = registry.get(name, (name, arguments)) == (name, arguments)
        if plain and (self.aliases >= MAX_ALIASES or not self.chance(25)):
            return name  # without an alias left, the plain key is free (see field())
        # Now and then the name of another field of the type, which that field then has to alias around.
        others: list[str] = sorted(set(type_.fields) - set(registry) - {name})
        if others and self.chance(15):
            self.features.add("alias named like another field")
            return str(self.draw(st.sampled_from(others)))
        return self.fresh(f"{name}_")

    def typename(self, type_: GraphQLObjectType) -> str:
        self.features.update(("__typename", f"{type_.name}.__typename"))
        if self.aliases < MAX_ALIASES and self.chance(30):
            key = self.fresh("typename_")
            self.keys.setdefault(type_.name, {})[key] = ("__typename", "")
            self.aliases += 1
            return f"{key}: __typename{self.directives()}"
        return f"__typename{self.directives()}"

    def spread(self, type_: GraphQLObjectType) -> str:
        known = [
            f
            for f in self.fragments
            if f.type_name == type_.name and f.name not in self.building and self.aliases + f.aliases <= MAX_ALIASES
        ]
        if known and self.chance(50):
            fragment = self.draw(st.sampled_from(known))
            self.aliases += fragment.aliases
            self.features.add("fragment spread twice")
        else:
            name, before = self.fresh("F"), self.aliases
            self.building.add(name)
            body = self.selection_set(type_)
            self.building.discard(name)
            fragment = _Fragment(name, type_.name, self.aliases - before)
            self.fragments.append(fragment)
            self.definitions.append(f"fragment {name} on {type_.name} {body}")
            self.features.add("named fragment")
        return f"...{fragment.name}{self.directives()}"

    def inline(self, type_: GraphQLObjectType) -> str:
        condition = ""
        if self.chance(60):
            condition = f" on {type_.name}"
            self.features.add("inline fragment")
        else:
            self.features.add("inline fragment without type condition")
        return f"...{condition}{self.directives()} {self.selection_set(type_)}"

    def directives(self) -> str:
        if not self.chance(15):
            return ""
        names = self.draw(st.sampled_from((("skip",), ("include",), ("skip", "include"), ("include", "skip"))))
        self.features.update(names)
        return "".join(f" @{name}(if: {self.condition()})" for name in names)

    def condition(self) -> str:
        if not self.chance(50):
            return self.draw(st.sampled_from(("true", "false")))
        self.features.add("condition variable")
        reusable = [name for name, v in self.variables.items() if v.key is None]
        if reusable and self.chance(50):
            return "$" + self.draw(st.sampled_from(reusable))
        name, value = self.fresh("if"), self.draw(st.booleans())
        if self.chance(30):
            # `if` is Boolean!: a nullable variable needs a default; omitted, the default decides.
            default = self.draw(st.booleans())
            given = self.chance(50)
            self.variables[name] = _Variable("Boolean", value, json.dumps(default), given, None, False)
        else:
            self.variables[name] = _Variable("Boolean!", value, None, True, None, False)
        return "$" + name

    # Arguments

    def pick(self, domain: Domain) -> Any:
        roll = self.draw(st.integers(0, 99))
        if domain.failures and self.may_fail and roll >= 100 - domain.fail:
            self.failed = True
            return self.draw(st.sampled_from(domain.failures))
        if domain.misses and roll >= 100 - domain.fail - domain.miss:
            return self.draw(st.sampled_from(domain.misses))
        return self.draw(st.sampled_from(domain.hits))

    def arguments(self, field_name: str, field: GraphQLField) -> str:
        parts = []
        for name, argument in field.args.items():
            if _required(argument) or self.chance(50):
                key = (field_name, name)
                value = self.value(argument.type, key)
                has_default = argument.default_value is not Undefined
                parts.append(f"{name}: {self.render(value, argument.type, key, has_default)}")
        return f"({', '.join(parts)})" if parts else ""

    def value(self, type_: GraphQLInputType, key: tuple[str, str]) -> Any:
        """A value for a position as a variable would carry it (enums by name, input objects as dicts)."""
        if not isinstance(type_, GraphQLNonNull) and self.chance(4):
            return None
        domain = self.domains.get(key)
        if domain is not None:
            return self.pick(domain)
        inner = type_.of_type if isinstance(type_, GraphQLNonNull) else type_
        if isinstance(inner, GraphQLList):
            return [self.value(inner.of_type, key) for _ in range(self.draw(st.integers(1, 2)))]
        if isinstance(inner, GraphQLInputObjectType):
            return {
                name: self.value(field.type, (inner.name, name))
                for name, field in inner.fields.items()
                if (isinstance(field.type, GraphQLNonNull) and field.default_value is Undefined) or self.chance(40)
            }
        if isinstance(inner, GraphQLEnumType):
            return self.draw(st.sampled_from(sorted(inner.values)))
        return self.draw(_GENERIC[inner.name])

    def render(self, value: Any, type_: GraphQLInputType, key: tuple[str, str], has_default: bool = False) -> str:
        """The value at a position: a variable, or a literal (which may hold variables inside)."""
        if self.chance(30):
            return "$" + self.variable(value, type_, key, has_default)
        self.features.add("literal argument")
        return self.literal(value, type_, key)

    def literal(self, value: Any, type_: GraphQLInputType, key: tuple[str, str], *, constant: bool = False) -> str:
        inner = type_.of_type if isinstance(type_, GraphQLNonNull) else type_
        if value is None:
            return "null"
        if isinstance(inner, GraphQLList):
            item = inner.of_type
            if len(value) == 1 and self.chance(40):
                # Input coercion takes a single item for a list; a variable there would be a type error.
                self.features.add("list coercion")
                return self.literal(value[0], item, key, constant=constant)
            items = (
                self.literal(v, item, key, constant=True) if constant else self.render(v, item, key) for v in value
            )
            return "[" + ", ".join(items) + "]"
        if isinstance(inner, GraphQLInputObjectType):
            fields = []
            for name, v in value.items():
                field, at = inner.fields[name], (inner.name, name)
                if constant:
                    fields.append(f"{name}: {self.literal(v, field.type, at, constant=True)}")
                else:
                    fields.append(f"{name}: {self.render(v, field.type, at, field.default_value is not Undefined)}")
            return "{" + ", ".join(fields) + "}"
        if isinstance(inner, GraphQLEnumType):
            return str(value)
        return json.dumps(value, ensure_ascii=False)  # strings, ints, floats, booleans: JSON spells them as GraphQL

    def variable(self, value: Any, type_: GraphQLInputType, key: tuple[str, str], has_default: bool) -> str:
        declared = str(type_)
        if isinstance(type_, GraphQLNonNull) and has_default and self.chance(50):
            # Allowed where the argument has a default; given as null, the field fails.
            declared = str(type_.of_type)
            self.features.add("nullable variable, argument default")
            if self.may_fail and self.chance(10):
                value, self.failed = None, True
        self.features.add("variable")
        # Only where it was made for: a value of another argument could fail here.
        reusable = [n for n, v in self.variables.items() if v.type == declared and v.key == key and not v.failing]
        if reusable and self.chance(50):
            self.features.add("variable reused")
            return str(self.draw(st.sampled_from(reusable)))
        name, default, given = self.fresh("v"), None, True
        if self.chance(20):
            default = self.literal(value, type_, key, constant=True)
            given = self.chance(50)
            self.features.add("variable default" if given else "defaulted variable omitted")
        elif not declared.endswith("!") and self.chance(20):
            given = False
            self.features.add("optional variable omitted")
        self.variables[name] = _Variable(declared, value, default, given, key, self.failed)
        return name


def _required(argument: GraphQLArgument) -> bool:
    return isinstance(argument.type, GraphQLNonNull) and argument.default_value is Undefined

"""GraphQL over HTTP (graphql.github.io/graphql-over-http): the media types and status codes of /graphql.

- A client that accepts `application/graphql-response+json` gets it; a request error (the document does
  not parse or validate, a variable cannot be coerced, the operation is too expensive) is then answered
  400 with no `data` entry, as that media type says. A client asking for `application/json` (or anything,
  or nothing: the older convention most clients still rely on) gets `application/json` and 200 for every
  well-formed GraphQL response.
- Either way, a response with a field the database could not answer (it is away) is 503 with
  Retry-After, so that load balancers and clients retry; the partial data is still in the body.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphql import GraphQLError

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
# Answered 200 under either media type: Apollo clients send the document on this answer.
_NOT_REQUEST_ERRORS = {"PERSISTED_QUERY_NOT_FOUND"}


def response_media_type(accept: str) -> str:
    """The media type to answer with: graphql-response+json when the client lists it (and ranks it no lower
    than application/json), else application/json."""
    ranks = {JSON: -1.0, GRAPHQL_RESPONSE: -1.0}
    for part in accept.split(","):
        media, _, parameters = part.partition(";")
        media = media.strip().lower()
        if media in ranks:
            ranks[media] = quality(parameters)
    if ranks[GRAPHQL_RESPONSE] > 0 and ranks[GRAPHQL_RESPONSE] >= ranks[JSON]:
        return GRAPHQL_RESPONSE
    return JSON


def is_json_body(content_type: str) -> bool:
    """Whether a POST body's Content-Type is `application/json` exactly (not `application/jsonx`), in UTF-8."""
    media_type, _, parameters = content_type.partition(";")
    if media_type.strip().lower() != JSON:
        return False
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return True


def quality(parameters: str) -> float:
    """The weight `q` of a media range's parameters (`; q=0.5`), 1 without one."""
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "q":
            try:
                return float(value)
            except ValueError:
                return 0.0
    return 1.0


@dataclass(frozen=True)
class Outcome:
    status: int = 200
    without_data: bool = False
    retry_after: int | None = None


def outcome(data: object, errors: list[GraphQLError] | None, media_type: str) -> Outcome:
    """The status of a GraphQL response, and whether its `data` entry is left out."""
    if not errors:
        return Outcome()
    codes = [(error.extensions or {}).get("code") for error in errors]
    if "unavailable" in codes:
        retry_after = next(
            (int((e.extensions or {}).get("info", {}).get("retry_after", 5)) for e in errors if e.extensions), 5
        )
        return Outcome(503, retry_after=retry_after)
    if data is not None:
        return Outcome()
    request_error = all(error.path is None for error in errors) and not _NOT_REQUEST_ERRORS.intersection(codes)
    if request_error and media_type == GRAPHQL_RESPONSE:
        return Outcome(400, without_data=True)
    return Outcome()

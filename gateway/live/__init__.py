"""GraphQL subscriptions' transport: WebSocket at /graphql with the graphql-transport-ws subprotocol, behind
the same bearer tokens as every request, with limits per connection and per user, an idle timeout, and the
events of this process's live feed (datasources/live). Settings in settings.py, the handler in
transport.py."""

"""Live events: GraphQL subscriptions over the outbox's REST_Auft and REST_Kunde events and the catalogue's
change positions (datasources/live); the transports are the gateway's (gateway/live)."""

"""The reference pages generated from the code: settings, command line, GraphQL schema, REST routes."""

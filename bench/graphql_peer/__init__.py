"""bench/graphql_peer: the gateway's /graphql beside PostGraphile 4 on one PostgreSQL catalogue (issue 40).
Run `python -m bench graphql-peer --help`."""

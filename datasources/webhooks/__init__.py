"""Webhooks: the endpoints that subscribe to ERP events and the delivery of each event to each of them.

The modules are imported by name (datasources.webhooks.endpoints, ...): datasources.events records into
fanout, and endpoints reads the event names from datasources.events, so this package imports none of them.
"""

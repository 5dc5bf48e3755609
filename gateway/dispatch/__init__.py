from gateway.dispatch.dispatcher import Dispatcher
from gateway.dispatch.settings import WebhookSettings

__all__ = ["Dispatcher", "WebhookSettings"]

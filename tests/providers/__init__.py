"""The platform's model providers: the chat call and the adapters."""

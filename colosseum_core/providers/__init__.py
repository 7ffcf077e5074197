"""Model providers: one httpx adapter per protocol behind a single ``call_model``.

Protocols: ``openai`` (OpenAI-compatible chat completions: OpenAI, xAI, DeepSeek, Mistral,
Together, OpenRouter, vLLM, Ollama, llama.cpp server), ``anthropic`` (Messages) and ``gemini``
(``generateContent``). The asking rules are in :mod:`colosseum_core.providers.call`.
"""

from colosseum_core.providers.adapters import PROTOCOLS, adapter_for
from colosseum_core.providers.call import MAX_ASKS, OMITTED, CallResult, CallSettings, call_model

__all__ = ["MAX_ASKS", "OMITTED", "PROTOCOLS", "CallResult", "CallSettings", "adapter_for", "call_model"]

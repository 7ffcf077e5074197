"""Model providers: one httpx adapter per protocol behind a single ``call_model``.

Protocols: ``openai`` (OpenAI-compatible chat completions: OpenAI, xAI, DeepSeek, Mistral,
Together, OpenRouter, vLLM, Ollama, llama.cpp server), ``anthropic`` (Messages) and ``gemini``
(``generateContent``). The asking rules are in :mod:`colosseum_core.providers.call`.
"""

from colosseum_core.providers.adapters import PROTOCOLS, adapter_for
from colosseum_core.providers.call import (
    MAX_ASKS,
    OMITTED,
    CallJournal,
    CallResult,
    CallSettings,
    Replayed,
    ReplayError,
    call_model,
    no_reply_error,
    replay_call,
)

__all__ = [
    "MAX_ASKS",
    "OMITTED",
    "PROTOCOLS",
    "CallJournal",
    "CallResult",
    "CallSettings",
    "ReplayError",
    "Replayed",
    "adapter_for",
    "call_model",
    "no_reply_error",
    "replay_call",
]

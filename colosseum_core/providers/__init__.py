"""Model providers: one chat call (``chat``: messages in, one reply and its receipts out) for every
arena, over one httpx adapter per protocol, with fallback chains (``call_with_fallbacks``).

Protocols: ``openai`` (OpenAI-compatible chat completions: OpenAI, xAI, DeepSeek, Mistral,
Together, OpenRouter, vLLM, Ollama, llama.cpp server), ``anthropic`` (Messages) and ``gemini``
(``generateContent``). Every call's result says why its reply ended (``stop``) and, when it did not
answer cleanly, what it ran into (``diagnosis``: what ``models check`` prints). The engine is
:mod:`colosseum_core.providers.call`; each arena's asking rules are its own ``AskingPolicy`` (the
forecast's: :mod:`colosseum_core.forecast.answering.asking`).

Imported by: every arena (its asking rules and house players), the registry, the local sparring
server (``colosseum_standins.sparring``: the house players' grammar), the wiring and the tests. It
imports no arena (``.importlinter``).
"""

from colosseum_core.providers.adapters import PROTOCOLS, STOPS, Message, Stopped, adapter_for
from colosseum_core.providers.call import (
    OMITTED,
    REPLY_1,
    REPLY_2,
    AskingPolicy,
    CallJournal,
    CallResult,
    CallSettings,
    Diagnosis,
    Endpoint,
    FallbackResult,
    Replayed,
    ReplayError,
    call_with_fallbacks,
    chat,
    classify_refusal,
    diagnose,
    no_reply_error,
    replay_call,
    stop_in_receipt,
)

__all__ = [
    "OMITTED",
    "PROTOCOLS",
    "REPLY_1",
    "REPLY_2",
    "STOPS",
    "AskingPolicy",
    "CallJournal",
    "CallResult",
    "CallSettings",
    "Diagnosis",
    "Endpoint",
    "FallbackResult",
    "Message",
    "ReplayError",
    "Replayed",
    "Stopped",
    "adapter_for",
    "call_with_fallbacks",
    "chat",
    "classify_refusal",
    "diagnose",
    "no_reply_error",
    "replay_call",
    "stop_in_receipt",
]

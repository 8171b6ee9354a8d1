"""LLM providers through their maintained clients: the `openai` package for any
OpenAI-compatible endpoint (hosted, vLLM, Ollama, llama.cpp server) and the `anthropic` package.

A :class:`RaterConfig` names the provider, model, base URL and the *name* of the environment
variable that holds the key; the key itself is read when the client is made and is never logged,
stored or put in an error message. Retries with exponential backoff and jitter on rate limits,
timeouts, connection errors and server errors go through tenacity; the clients' own retry loops
are switched off so there is one policy.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from tenacity import (RetryError, Retrying, retry_if_exception, stop_after_attempt,
                      wait_random_exponential)

PROVIDERS = ("openai", "anthropic")


class ConfigError(Exception):
    """A bad rater configuration: names the file or flag and the problem."""


class ProviderError(Exception):
    """A request that failed for good (after retries), with a message safe to print."""

    def __init__(self, message: str, kind: str = "error") -> None:
        super().__init__(message)
        self.kind = kind  # "rate-limit", "timeout", "connection", "server", "client", "error"


@dataclass
class RaterConfig:
    provider: str = "openai"
    model: str = ""
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    max_tokens: int = 4096
    temperature: float = 0.0
    timeout_s: float = 120.0
    retries: int = 5                 # attempts after the first, on transient errors
    backoff_s: float = 0.5           # first backoff; doubles per attempt, with jitter
    backoff_max_s: float = 60.0
    invalid_retries: int = 2         # new requests after a reply that breaks the schema
    concurrency: int = 4
    price_in_per_mtok: float = 0.0   # for the cost budget: USD per million input tokens
    price_out_per_mtok: float = 0.0
    budget_tokens: int | None = None  # stop starting requests past this many tokens in total
    budget_usd: float | None = None

    @property
    def rater(self) -> str:
        from strategylens.annotate.prompt import PROMPT_VERSION  # noqa: PLC0415

        return f"{self.provider}:{self.model}@{PROMPT_VERSION}"

    def check(self, where: str = "configuration") -> RaterConfig:
        if self.provider not in PROVIDERS:
            raise ConfigError(f"{where}: provider '{self.provider}' is not one of "
                              f"{', '.join(PROVIDERS)}")
        if not self.model:
            raise ConfigError(f"{where}: no model given (--model or 'model' in the config)")
        if self.concurrency < 1:
            raise ConfigError(f"{where}: concurrency must be at least 1")
        return self

    def public(self) -> dict:
        """The configuration as recorded with results: the key's variable name, never the key."""
        return asdict(self)


def load_config(path: Path | str | None = None, overrides: dict | None = None) -> RaterConfig:
    """A rater configuration from a TOML file and flags (flags win).

    The file is ``strategylens.toml`` with an ``[annotate]`` table, or ``pyproject.toml`` with
    ``[tool.strategylens.annotate]``; without ``path``, the one found by
    :func:`strategylens.config.load_config`. Unknown keys are an error naming the file and the
    key.
    """
    from strategylens.config import ConfigError as FileError, read_section

    try:
        data, where = read_section("annotate", path)
    except FileError as exc:
        raise ConfigError(str(exc)) from None
    where = where if data or path else "flags"
    known = {f.name for f in fields(RaterConfig)}
    bad = sorted(set(data) - known)
    if bad:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(bad)}; known: {', '.join(sorted(known))}")
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    if "provider" in data and "api_key_env" not in data and data["provider"] == "anthropic":
        data["api_key_env"] = "ANTHROPIC_API_KEY"
    return RaterConfig(**data).check(where)


@dataclass
class Reply:
    text: str
    input_tokens: int
    output_tokens: int


class Client:
    """One provider client. :meth:`complete` sends one request with the retry policy."""

    def __init__(self, cfg: RaterConfig) -> None:
        self.cfg = cfg
        key = os.environ.get(cfg.api_key_env)
        if not key:
            if cfg.base_url:  # local servers (vLLM, Ollama, llama.cpp) often take any key
                key = "not-needed"
            else:
                raise ConfigError(f"the environment variable {cfg.api_key_env} holding the API "
                                  "key is not set")
        self._secret = key
        if cfg.provider == "openai":
            import openai  # noqa: PLC0415

            self._errors = openai
            self._client = openai.OpenAI(api_key=key, base_url=cfg.base_url,
                                         timeout=cfg.timeout_s, max_retries=0)
        else:
            import anthropic  # noqa: PLC0415

            self._errors = anthropic
            self._client = anthropic.Anthropic(api_key=key, base_url=cfg.base_url,
                                               timeout=cfg.timeout_s, max_retries=0)

    def _kind(self, exc: BaseException) -> str | None:
        e = self._errors
        if isinstance(exc, e.RateLimitError):
            return "rate-limit"
        if isinstance(exc, e.APITimeoutError):
            return "timeout"
        if isinstance(exc, e.APIConnectionError):
            return "connection"
        if isinstance(exc, e.InternalServerError):
            return "server"
        status = getattr(exc, "status_code", None)
        if isinstance(status, int) and status >= 500:
            return "server"
        return None

    def _transient(self, exc: BaseException) -> bool:
        return self._kind(exc) is not None

    def _safe(self, exc: BaseException) -> str:
        msg = f"{type(exc).__name__}: {exc}"
        return msg.replace(self._secret, "***") if self._secret else msg

    def send(self, system: str, messages: list[dict]) -> Reply:
        """One request, no retries."""
        body = request_body(self.cfg, system, messages)
        if self.cfg.provider == "openai":
            resp = self._client.chat.completions.create(**body)
            return parse_openai(resp)
        return parse_anthropic(self._client.messages.create(**body))

    def complete(self, system: str, messages: list[dict]) -> Reply:
        """Send with retries on transient errors; raise :class:`ProviderError` when it fails."""
        retrying = Retrying(
            retry=retry_if_exception(self._transient),
            wait=wait_random_exponential(multiplier=self.cfg.backoff_s, max=self.cfg.backoff_max_s),
            stop=stop_after_attempt(self.cfg.retries + 1), reraise=False)
        try:
            return retrying(self.send, system, messages)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            raise ProviderError(f"gave up after {self.cfg.retries + 1} attempts: "
                                f"{self._safe(last)}", self._kind(last) or "error") from None
        except Exception as exc:  # noqa: BLE001 - a client error (400, 401, ...) is final
            raise ProviderError(self._safe(exc), self._kind(exc) or "client") from None


def request_body(cfg: RaterConfig, system: str, messages: list[dict]) -> dict:
    """The provider's request body for one solution (what a live call sends and a batch line
    carries)."""
    if cfg.provider == "openai":
        return {"model": cfg.model, "max_tokens": cfg.max_tokens, "temperature": cfg.temperature,
                "messages": [{"role": "system", "content": system}, *messages]}
    # the anthropic client (2.x) takes no temperature: its models fix their own sampling
    return {"model": cfg.model, "max_tokens": cfg.max_tokens, "system": system,
            "messages": messages}


def _get(obj, name, default=None):
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def parse_openai(resp) -> Reply:
    """Text and token counts of a chat completion (client object or batch JSON)."""
    choices = _get(resp, "choices") or []
    text = (_get(_get(choices[0], "message"), "content") or "") if choices else ""
    usage = _get(resp, "usage") or {}
    return Reply(text, _get(usage, "prompt_tokens", 0) or 0, _get(usage, "completion_tokens", 0) or 0)


def parse_anthropic(resp) -> Reply:
    """Text and token counts of a message (client object or batch JSON)."""
    text = "".join(_get(b, "text", "") or "" for b in _get(resp, "content") or [])
    usage = _get(resp, "usage") or {}
    return Reply(text, _get(usage, "input_tokens", 0) or 0, _get(usage, "output_tokens", 0) or 0)

"""Asking an LLM to label solutions: cache, validation, retries for invalid replies, a token and
cost budget, a concurrency limit, records in the JSONL shape of `strategylens tag`.

One record per file, written as soon as it is known: ``{"path", "ok", "error", "rater",
"labels": [...], "usage": {...}, "cached"}``; a failed file keeps the last reply under
``"reply"``. Only valid replies are cached (``<cache root>/annotate``), keyed by provider, model,
prompt version and everything sent, so a second run over the same files costs nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

from strategylens.annotate.prompt import (PROMPT_VERSION, build_messages, reply_schema,
                                          request_key)
from strategylens.annotate.providers import Client, ProviderError, RaterConfig, Reply
from strategylens.resources import atomic_write, cache_root

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n\s*```\s*$", re.S)


@dataclass
class Budget:
    """Running totals against optional limits. Requests in flight when a limit is reached still
    finish; no new one starts."""

    max_tokens: int | None = None
    max_usd: float | None = None
    price_in: float = 0.0   # USD per million tokens
    price_out: float = 0.0
    tokens: int = 0
    usd: float = 0.0
    requests: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def of(cls, cfg: RaterConfig) -> Budget:
        return cls(cfg.budget_tokens, cfg.budget_usd, cfg.price_in_per_mtok,
                   cfg.price_out_per_mtok)

    def exhausted(self) -> str | None:
        with self._lock:
            if self.max_tokens is not None and self.tokens >= self.max_tokens:
                return f"token budget exhausted ({self.tokens} of {self.max_tokens} tokens used)"
            if self.max_usd is not None and self.usd >= self.max_usd:
                return f"cost budget exhausted (${self.usd:.4f} of ${self.max_usd:.4f} spent)"
        return None

    def charge(self, reply: Reply) -> float:
        cost = (reply.input_tokens * self.price_in + reply.output_tokens * self.price_out) / 1e6
        with self._lock:
            self.tokens += reply.input_tokens + reply.output_tokens
            self.usd += cost
            self.requests += 1
        return cost

    def summary(self) -> dict:
        return {"requests": self.requests, "tokens": self.tokens, "usd": round(self.usd, 6)}


class Cache:
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder) if folder else cache_root() / "annotate"

    def _file(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            return json.loads(self._file(key).read_text())
        except (OSError, json.JSONDecodeError):
            return None

    def put(self, key: str, entry: dict) -> None:
        try:
            atomic_write(self._file(key), json.dumps(entry))
        except OSError:
            pass  # a read-only cache only costs money on the next run


def parse_reply(text: str, ids: list[str], n_lines: int) -> tuple[list[dict] | None, str | None]:
    """The labels of a reply, or why it is invalid. A reply is one JSON object (a single
    ```json fence around it is accepted) matching the schema, with line spans inside the file."""
    body = text.strip()
    m = _FENCE.match(body)
    if m:
        body = m.group(1)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    try:
        jsonschema.validate(data, reply_schema(ids))
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "the top level"
        return None, f"does not match the schema at {where}: {exc.message[:300]}"
    labels: dict[str, dict] = {}
    for lab in data["labels"]:
        for a, b in lab["lines"]:
            if a > b or b > n_lines:
                return None, (f"{lab['id']}: line span {a}-{b} is outside the file's "
                              f"{n_lines} lines")
        prev = labels.get(lab["id"])
        spans = [tuple(s) for s in lab["lines"]]
        if prev:  # the same ID twice: merge its spans and reasons
            prev["spans"] += spans
            prev["reason"] += "; " + lab["reason"]
            continue
        labels[lab["id"]] = {"id": lab["id"], "spans": spans, "reason": lab["reason"],
                             "confidence": lab.get("confidence")}
    return list(labels.values()), None


def to_tag_labels(parsed: list[dict], rater: str) -> list[dict]:
    """Parsed reply labels in the shape of `strategylens tag` labels."""
    return [{
        "id": lab["id"], "kind": "anti-pattern" if lab["id"].startswith("AP-") else "strategy",
        "confidence": lab.get("confidence"), "probability": None, "intensity": None,
        "evidence": [{"line_start": a, "line_end": b, "detector": rater, "note": lab["reason"]}
                     for a, b in sorted(set(map(tuple, lab["spans"])))],
    } for lab in sorted(parsed, key=lambda x: x["id"])]


@dataclass
class Job:
    """One file to label, with what the prompt is built from."""

    path: str
    source: str
    reference: str | None = None
    hints: list[dict] | None = None


def label_one(job: Job, cfg: RaterConfig, catalog, client: Client | None, cache: Cache | None,
              budget: Budget) -> dict:
    """Label one file: from the cache, else by asking (with repair requests for invalid
    replies). Never raises for a provider or reply problem: the record says what went wrong."""
    ids = [e.id for e in catalog.entries]
    rater = cfg.rater
    system, messages = build_messages(catalog, job.source, job.reference, job.hints)
    key = request_key(cfg.provider, cfg.model, system, messages,
                      {"max_tokens": cfg.max_tokens, "temperature": cfg.temperature})
    record = {"path": job.path, "ok": False, "error": None, "rater": rater, "labels": [],
              "usage": {"requests": 0, "input_tokens": 0, "output_tokens": 0, "usd": 0.0},
              "cached": False, "file_sha256": hashlib.sha256(job.source.encode()).hexdigest()}
    hit = cache.get(key) if cache else None
    if hit and hit.get("labels") is not None:
        record.update(ok=True, labels=to_tag_labels(hit["labels"], rater), cached=True)
        return record
    if client is None:
        record["error"] = "not in the cache and no client to ask (offline)"
        return record
    n_lines = len(job.source.splitlines())
    text = ""
    for attempt in range(cfg.invalid_retries + 1):
        why = budget.exhausted()
        if why:
            record["error"] = why
            break
        try:
            reply = client.complete(system, messages)
        except ProviderError as exc:
            record["error"] = f"{exc.kind}: {exc}"
            break
        cost = budget.charge(reply)
        u = record["usage"]
        u["requests"] += 1
        u["input_tokens"] += reply.input_tokens
        u["output_tokens"] += reply.output_tokens
        u["usd"] = round(u["usd"] + cost, 6)
        text = reply.text
        parsed, problem = parse_reply(text, ids, n_lines)
        if parsed is not None:
            record.update(ok=True, error=None, labels=to_tag_labels(parsed, rater))
            record.pop("reply", None)
            if cache:
                cache.put(key, {"labels": parsed, "reply": text, "rater": rater,
                                "prompt_version": PROMPT_VERSION, "path": job.path,
                                "utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")})
            return record
        record["error"] = f"invalid reply (attempt {attempt + 1}): {problem}"
        record["reply"] = text[:20000]
        messages = [*messages, {"role": "assistant", "content": text or "(empty)"},
                    {"role": "user", "content": f"That reply is invalid: {problem}. Reply again "
                                                "with only the JSON object."}]
    if text and "reply" not in record:
        record["reply"] = text[:20000]
    return record


def annotate(jobs: Iterable[Job], cfg: RaterConfig, catalog, client: Client | None = None,
             cache: Cache | None = None, budget: Budget | None = None,
             on_done: Callable[[dict], None] | None = None) -> Iterator[dict]:
    """Label every job with at most ``cfg.concurrency`` requests in flight; yields each record
    as it is finished (completion order)."""
    budget = budget or Budget.of(cfg)
    jobs = iter(jobs)
    with ThreadPoolExecutor(cfg.concurrency) as pool:
        running = set()
        for job in jobs:
            running.add(pool.submit(label_one, job, cfg, catalog, client, cache, budget))
            if len(running) >= cfg.concurrency:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for f in done:
                    rec = f.result()
                    if on_done:
                        on_done(rec)
                    yield rec
        for f in running:
            rec = f.result()
            if on_done:
                on_done(rec)
            yield rec

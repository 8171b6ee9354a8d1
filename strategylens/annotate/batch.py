"""Offline batches: write the exact requests of a run in a provider's batch format, read the
provider's results back into the same records a live run gives.

``export`` writes ``requests.jsonl`` (OpenAI: ``{"custom_id", "method", "url", "body"}``;
Anthropic: ``{"custom_id", "params"}``) and ``manifest.json`` (which custom_id is which file,
the cache key, the rater). ``import_results`` reads the provider's results file (OpenAI:
``{"custom_id", "response": {"status_code", "body"}, "error"}``; Anthropic: ``{"custom_id",
"result": {"type": "succeeded", "message"}}``), validates every reply as a live run does, puts
valid ones in the cache (so a later live run of the same files costs nothing) and returns the
records. A reply that fails validation is a failed record with the reply kept; re-export with
``--missing-only`` to ask again for those files.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

from strategylens.annotate.prompt import PROMPT_VERSION, build_messages, request_key
from strategylens.annotate.providers import RaterConfig, parse_anthropic, parse_openai, request_body
from strategylens.annotate.run import Cache, Job, parse_reply, to_tag_labels
from strategylens.resources import atomic_write


class BatchError(Exception):
    """A batch file that cannot be used: names the file and the problem."""


def export(jobs: list[Job], cfg: RaterConfig, catalog, out_dir: Path | str,
           cache: Cache | None = None, missing_only: bool = False) -> dict:
    """Write the requests of ``jobs`` to ``out_dir``; with ``missing_only`` skip files whose
    reply is already cached. Returns the manifest."""
    out_dir = Path(out_dir)
    lines, entries = [], {}
    for n, job in enumerate(jobs):
        system, messages = build_messages(catalog, job.source, job.reference, job.hints)
        key = request_key(cfg.provider, cfg.model, system, messages,
                          {"max_tokens": cfg.max_tokens, "temperature": cfg.temperature})
        if missing_only and cache and cache.get(key):
            continue
        cid = f"sl-{n:06d}-{key[:12]}"
        body = request_body(cfg, system, messages)
        if cfg.provider == "openai":
            lines.append({"custom_id": cid, "method": "POST", "url": "/v1/chat/completions",
                          "body": body})
        else:
            lines.append({"custom_id": cid, "params": body})
        entries[cid] = {"path": job.path, "key": key, "n_lines": len(job.source.splitlines()),
                        "file_sha256": hashlib.sha256(job.source.encode()).hexdigest()}
    manifest = {"prompt_version": PROMPT_VERSION, "rater": cfg.rater, "provider": cfg.provider,
                "model": cfg.model, "ids": [e.id for e in catalog.entries],
                "created_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                "requests": entries}
    atomic_write(out_dir / "requests.jsonl", "".join(json.dumps(x) + "\n" for x in lines))
    atomic_write(out_dir / "manifest.json", json.dumps(manifest, indent=1))
    return manifest


def import_results(results: Path | str, manifest: Path | str | None = None,
                   cache: Cache | None = None) -> list[dict]:
    """Records for every request of the manifest: from the results file, or failed with
    "no result" when the provider returned none for it."""
    results = Path(results)
    mpath = Path(manifest) if manifest else results.parent / "manifest.json"
    try:
        man = json.loads(mpath.read_text())
    except OSError as exc:
        raise BatchError(f"{mpath}: cannot read the manifest ({exc.strerror or exc}); pass "
                         "--manifest") from exc
    except json.JSONDecodeError as exc:
        raise BatchError(f"{mpath}: not JSON: {exc.msg}") from exc
    try:
        text = results.read_text()
    except OSError as exc:
        raise BatchError(f"{results}: cannot read: {exc.strerror or exc}") from exc
    rater, ids, entries = man["rater"], man["ids"], man["requests"]
    replies: dict[str, tuple[str | None, str | None, dict]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BatchError(f"{results}:{n}: not JSON: {exc.msg}") from exc
        cid = obj.get("custom_id")
        if cid not in entries:
            raise BatchError(f"{results}:{n}: custom_id {cid!r} is not in {mpath}")
        replies[cid] = _reply_of(obj, man["provider"])
    out = []
    for cid, entry in entries.items():
        rec = {"path": entry["path"], "ok": False, "error": None, "rater": rater, "labels": [],
               "usage": {"requests": 0, "input_tokens": 0, "output_tokens": 0}, "cached": False,
               "file_sha256": entry["file_sha256"], "batch_id": cid}
        if cid not in replies:
            rec["error"] = "no result for this request in the batch output"
            out.append(rec)
            continue
        text, error, usage = replies[cid]
        rec["usage"].update(requests=1, **usage)
        if error:
            rec["error"] = error
        else:
            parsed, problem = parse_reply(text or "", ids, entry["n_lines"])
            if parsed is None:
                rec.update(error=f"invalid reply: {problem}", reply=(text or "")[:20000])
            else:
                rec.update(ok=True, labels=to_tag_labels(parsed, rater))
                if cache:
                    cache.put(entry["key"], {"labels": parsed, "reply": text, "rater": rater,
                                             "prompt_version": man["prompt_version"],
                                             "path": entry["path"], "via": "batch"})
        out.append(rec)
    return out


def _reply_of(obj: dict, provider: str) -> tuple[str | None, str | None, dict]:
    """(text, error, usage) of one results line."""
    if provider == "openai":
        if obj.get("error"):
            return None, f"batch error: {json.dumps(obj['error'])[:300]}", {}
        resp = obj.get("response") or {}
        if resp.get("status_code", 200) != 200:
            return None, f"batch request failed with HTTP {resp.get('status_code')}", {}
        r = parse_openai(resp.get("body") or {})
    else:
        res = obj.get("result") or {}
        if res.get("type") != "succeeded":
            return None, (f"batch request {res.get('type', 'failed')}: "
                          f"{json.dumps(res.get('error'))[:300]}"), {}
        r = parse_anthropic(res.get("message") or {})
    return r.text, None, {"input_tokens": r.input_tokens, "output_tokens": r.output_tokens}

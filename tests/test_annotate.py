"""`strategylens annotate` against small OpenAI-compatible and Anthropic-shaped servers started
on 127.0.0.1 inside the tests: good replies, malformed JSON, schema violations, timeouts, rate
limits, server and client errors, the budget, the cache and the batch round trip."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from strategylens.annotate import batch
from strategylens.annotate.prompt import PROMPT_VERSION
from strategylens.annotate.providers import Client, ConfigError, RaterConfig, load_config
from strategylens.annotate.run import Budget, Cache, Job, annotate, label_one, parse_reply
from strategylens.catalog import load_catalog
from tests.fake_llm import FakeLLM

SOURCE = """#include <cuda_runtime.h>
__global__ void scale(const float* __restrict__ x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
extern "C" void solution_compute(int n, const float* x, float* y) {
    float *dx, *dy;
    cudaMalloc(&dx, n * 4); cudaMalloc(&dy, n * 4);
    cudaMemcpy(dx, x, n * 4, cudaMemcpyHostToDevice);
    scale<<<(n + 255) / 256, 256>>>(dx, dy, n);
    cudaMemcpy(y, dy, n * 4, cudaMemcpyDeviceToHost);
    cudaFree(dx); cudaFree(dy);
}
"""
GOOD = {"labels": [{"id": "MEM-01", "lines": [[3, 4]], "reason": "i drives x[i], y[i]",
                    "confidence": 0.9},
                   {"id": "MEM-04", "lines": [[2, 2]], "reason": "const __restrict__ input"}]}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv("SL_TEST_KEY", "sk-secret-test-123")


def cfg_for(server: FakeLLM, **kw) -> RaterConfig:
    base = dict(provider=server.kind, model="m-1", base_url=server.url, api_key_env="SL_TEST_KEY",
                timeout_s=5.0, retries=2, backoff_s=0.01, backoff_max_s=0.05, concurrency=1)
    base.update(kw)
    return RaterConfig(**base).check()


def run_one(server, catalog, tmp_path, **kw):
    cfg = cfg_for(server, **kw)
    return label_one(Job("sol.cu", SOURCE), cfg, catalog, Client(cfg), Cache(tmp_path / "c"),
                     Budget.of(cfg))


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_good_reply_becomes_a_tag_shaped_record(kind, catalog, tmp_path):
    with FakeLLM(kind, default=("json", GOOD)) as server:
        rec = run_one(server, catalog, tmp_path)
        sent = server.requests[0]
        headers = server.headers[0]
    assert rec["ok"] and rec["error"] is None and not rec["cached"]
    assert rec["rater"] == f"{kind}:m-1@{PROMPT_VERSION}"
    assert [(lab["id"], [(e["line_start"], e["line_end"]) for e in lab["evidence"]])
            for lab in rec["labels"]] == [("MEM-01", [(3, 4)]), ("MEM-04", [(2, 2)])]
    assert rec["labels"][0]["confidence"] == 0.9 and rec["labels"][1]["confidence"] is None
    assert rec["labels"][0]["evidence"][0]["note"] == "i drives x[i], y[i]"
    assert rec["usage"] == {"requests": 1, "input_tokens": 1000, "output_tokens": 100, "usd": 0.0}
    # the prompt carries the catalog and the numbered solution; the key travels only as a header
    system = sent["messages"][0]["content"] if kind == "openai" else sent["system"]
    assert "MEM-02 (strategy) Shared-memory tiling" in system
    user = sent["messages"][-1]["content"]
    assert "   3|     int i = blockIdx.x * blockDim.x + threadIdx.x;" in user
    assert "sk-secret-test-123" in json.dumps(headers)
    assert "sk-secret-test-123" not in json.dumps(rec)


def test_malformed_json_is_asked_again_with_the_problem(catalog, tmp_path):
    with FakeLLM(script=[("text", "Sure! Here are the labels: {labels: ...")],
                 default=("json", GOOD)) as server:
        rec = run_one(server, catalog, tmp_path)
        second = server.requests[1]["messages"]
    assert rec["ok"] and rec["usage"]["requests"] == 2
    assert second[-2] == {"role": "assistant", "content": "Sure! Here are the labels: {labels: ..."}
    assert second[-1]["content"].startswith("That reply is invalid: not JSON")


def test_a_fenced_json_reply_is_accepted(catalog):
    labels, problem = parse_reply("```json\n" + json.dumps(GOOD) + "\n```", ["MEM-01", "MEM-04"], 13)
    assert problem is None and [x["id"] for x in labels] == ["MEM-01", "MEM-04"]


def test_schema_violations_end_as_a_failure_with_the_reply_kept(catalog, tmp_path):
    bad = {"labels": [{"id": "MEM-99", "lines": [[1, 2]], "reason": "x"}]}
    with FakeLLM(default=("json", bad)) as server:
        rec = run_one(server, catalog, tmp_path, invalid_retries=1)
        n = len(server.requests)
    assert not rec["ok"] and n == 2 and rec["usage"]["requests"] == 2
    assert rec["error"].startswith("invalid reply (attempt 2): does not match the schema at "
                                   "labels/0/id")
    assert json.loads(rec["reply"]) == bad
    assert not list((tmp_path / "c").rglob("*.json"))  # failures are not cached


def test_line_spans_outside_the_file_are_invalid(catalog):
    reply = {"labels": [{"id": "MEM-01", "lines": [[3, 40]], "reason": "x"}]}
    labels, problem = parse_reply(json.dumps(reply), ["MEM-01"], 13)
    assert labels is None and problem == "MEM-01: line span 3-40 is outside the file's 13 lines"
    reply["labels"][0]["lines"] = [[5, 3]]
    assert parse_reply(json.dumps(reply), ["MEM-01"], 13)[0] is None


def test_a_timeout_is_retried_then_recorded(catalog, tmp_path):
    with FakeLLM(default=("sleep", 1.5)) as server:
        rec = run_one(server, catalog, tmp_path, timeout_s=0.3, retries=1)
        n = len(server.requests)
    assert not rec["ok"] and n == 2
    assert rec["error"].startswith("timeout: gave up after 2 attempts: APITimeoutError")


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
@pytest.mark.parametrize("status", [429, 500, 503])
def test_rate_limits_and_server_errors_are_retried(kind, status, catalog, tmp_path):
    with FakeLLM(kind, script=[("status", status), ("status", status)],
                 default=("json", GOOD)) as server:
        rec = run_one(server, catalog, tmp_path, retries=2)
        n = len(server.requests)
    assert rec["ok"] and n == 3 and rec["usage"]["requests"] == 1


def test_retries_give_up_and_client_errors_are_final(catalog, tmp_path):
    with FakeLLM(default=("status", 429)) as server:
        rec = run_one(server, catalog, tmp_path, retries=2)
        assert len(server.requests) == 3
    assert rec["error"].startswith("rate-limit: gave up after 3 attempts: RateLimitError")
    with FakeLLM(default=("status", 401)) as server:
        rec = run_one(server, catalog, tmp_path, retries=3)
        assert len(server.requests) == 1
    assert rec["error"].startswith("client: AuthenticationError")


def test_budget_stops_new_requests_and_counts_cost(catalog, tmp_path):
    files = [Job(f"f{i}.cu", SOURCE + f"// {i}\n") for i in range(4)]
    with FakeLLM(default=("json", GOOD)) as server:
        cfg = cfg_for(server, budget_tokens=2000, price_in_per_mtok=3.0, price_out_per_mtok=15.0)
        budget = Budget.of(cfg)
        recs = list(annotate(files, cfg, catalog, Client(cfg), None, budget))
        n = len(server.requests)
    assert n == 2 and [r["ok"] for r in recs] == [True, True, False, False]
    assert recs[2]["error"] == "token budget exhausted (2200 of 2000 tokens used)"
    assert budget.summary() == {"requests": 2, "tokens": 2200, "usd": 0.009}
    assert recs[0]["usage"]["usd"] == 0.0045


def test_the_cache_makes_a_rerun_free(catalog, tmp_path):
    files = [Job(f"f{i}.cu", SOURCE + f"// {i}\n") for i in range(3)]
    cache = Cache(tmp_path / "cache")
    with FakeLLM(default=("json", GOOD)) as server:
        cfg = cfg_for(server, concurrency=2)
        first = sorted(annotate(files, cfg, catalog, Client(cfg), cache), key=lambda r: r["path"])
        again = sorted(annotate(files, cfg, catalog, Client(cfg), cache), key=lambda r: r["path"])
        n = len(server.requests)
        other = label_one(files[0], cfg_for(server, model="m-2"), catalog, Client(cfg), cache,
                          Budget())
    assert n == 3 and [r["cached"] for r in again] == [True, True, True]
    assert [r["labels"] for r in again] == [r["labels"] for r in first]
    assert not other["cached"]  # another model is another cache entry
    assert "sk-secret-test-123" not in "".join(p.read_text() for p in cache.folder.rglob("*.json"))


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_batch_round_trip_gives_the_live_result(kind, catalog, tmp_path):
    jobs = [Job(f"f{i}.cu", SOURCE + f"// {i}\n") for i in range(2)]
    with FakeLLM(kind, default=("json", GOOD)) as server:
        cfg = cfg_for(server)
        live = sorted(annotate(jobs, cfg, catalog, Client(cfg), None), key=lambda r: r["path"])
        live_bodies = sorted(server.requests, key=json.dumps)
    man = batch.export(jobs, cfg, catalog, tmp_path / "b")
    lines = [json.loads(x) for x in (tmp_path / "b" / "requests.jsonl").read_text().splitlines()]
    bodies = [x["body"] if kind == "openai" else x["params"] for x in lines]
    assert sorted(bodies, key=json.dumps) == live_bodies  # the exact requests of a live run
    # the provider's answers, one bad
    out = []
    for n, x in enumerate(lines):
        text = json.dumps(GOOD) if n == 0 else "not json"
        if kind == "openai":
            out.append({"custom_id": x["custom_id"], "error": None, "response": {
                "status_code": 200, "body": {"choices": [{"message": {"content": text}}],
                                             "usage": {"prompt_tokens": 7, "completion_tokens": 3}}}})
        else:
            out.append({"custom_id": x["custom_id"], "result": {"type": "succeeded", "message": {
                "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": 7, "output_tokens": 3}}}})
    (tmp_path / "b" / "results.jsonl").write_text("".join(json.dumps(o) + "\n" for o in out))
    cache = Cache(tmp_path / "cache")
    recs = batch.import_results(tmp_path / "b" / "results.jsonl", cache=cache)
    assert len(man["requests"]) == 2
    assert recs[0]["ok"] and recs[0]["labels"] == live[0]["labels"]
    assert not recs[1]["ok"] and recs[1]["error"].startswith("invalid reply: not JSON")
    # the imported reply is in the cache: a live run of that file now costs nothing
    with FakeLLM(kind, default=("status", 500)) as server:
        again = label_one(jobs[0], cfg_for(server), catalog, Client(cfg_for(server)), cache,
                          Budget())
        assert server.requests == []
    assert again["cached"] and again["labels"] == live[0]["labels"]
    missing = batch.export(jobs, cfg, catalog, tmp_path / "b2", cache, missing_only=True)
    assert [e["path"] for e in missing["requests"].values()] == ["f1.cu"]


def test_batch_import_errors_name_the_file(tmp_path):
    (tmp_path / "r.jsonl").write_text('{"custom_id": "x"}\n')
    with pytest.raises(batch.BatchError, match="manifest"):
        batch.import_results(tmp_path / "r.jsonl")
    (tmp_path / "manifest.json").write_text(json.dumps({"rater": "r", "ids": [], "provider": "openai",
                                                        "prompt_version": "v", "requests": {}}))
    with pytest.raises(batch.BatchError, match=r"r.jsonl:1: custom_id 'x' is not in"):
        batch.import_results(tmp_path / "r.jsonl")


def test_config_file_and_flags(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "strategylens.toml").write_text(
        '[annotate]\nprovider = "anthropic"\nmodel = "claude-x"\nconcurrency = 2\n')
    cfg = load_config(overrides={"concurrency": 8})
    assert (cfg.provider, cfg.model, cfg.concurrency, cfg.api_key_env) == \
        ("anthropic", "claude-x", 8, "ANTHROPIC_API_KEY")
    (tmp_path / "strategylens.toml").write_text('[annotate]\nmodle = "x"\n')
    with pytest.raises(ConfigError, match=r"strategylens.toml: unknown key\(s\) modle"):
        load_config()
    (tmp_path / "strategylens.toml").unlink()
    (tmp_path / "pyproject.toml").write_text('[tool.strategylens.annotate]\nmodel = "gpt-y"\n')
    assert load_config().model == "gpt-y"
    with pytest.raises(ConfigError, match="no model given"):
        load_config(tmp_path / "pyproject.toml", {"model": ""})
    with pytest.raises(ConfigError, match="provider 'mistral' is not one of openai, anthropic"):
        load_config(overrides={"provider": "mistral"})


def test_missing_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("SL_TEST_KEY")
    with pytest.raises(ConfigError, match="SL_TEST_KEY holding the API key is not set"):
        Client(RaterConfig(model="m", api_key_env="SL_TEST_KEY"))


def test_cli_end_to_end(tmp_path, monkeypatch):
    from strategylens.cli import app

    sol = tmp_path / "sol.cu"
    sol.write_text(SOURCE)
    monkeypatch.setenv("STRATEGYLENS_CACHE", str(tmp_path / "cache"))
    runner = CliRunner()
    with FakeLLM(default=("json", GOOD)) as server:
        args = ["annotate", str(sol), "--model", "m-1", "--base-url", server.url,
                "--api-key-env", "SL_TEST_KEY", "--no-hints"]
        res = runner.invoke(app, args)
        res2 = runner.invoke(app, args + ["-o", str(tmp_path / "a.jsonl")])
        n = len(server.requests)
    assert res.exit_code == 0, res.output
    rec = json.loads(res.stdout.splitlines()[0])
    assert rec["path"] == str(sol) and [lab["id"] for lab in rec["labels"]] == ["MEM-01", "MEM-04"]
    assert res2.exit_code == 0 and n == 1  # the second run came from the cache
    assert json.loads((tmp_path / "a.jsonl").read_text())["cached"] is True
    bad = runner.invoke(app, ["annotate", str(sol), "--model", "m", "--provider", "nope"])
    assert bad.exit_code == 2 and "provider 'nope' is not one of" in bad.output
    assert os.environ.get("SL_TEST_KEY") not in (tmp_path / "a.jsonl").read_text()


def test_secret_is_scrubbed_from_error_messages():
    client = Client(RaterConfig(model="m", api_key_env="SL_TEST_KEY", base_url="http://x"))
    assert client._safe(RuntimeError("bad key sk-secret-test-123")) == "RuntimeError: bad key ***"

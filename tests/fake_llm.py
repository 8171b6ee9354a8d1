"""Small OpenAI-compatible and Anthropic-shaped HTTP servers on 127.0.0.1 for the annotate tests.

Each server answers from a script: a list of steps consumed one per request, then ``default``.
A step is ``("json", obj)`` (a reply whose text is ``json.dumps(obj)``), ``("text", str)``, ``("status",
code)`` (an error response), or ``("sleep", seconds)`` (answer after a delay longer than the
client's timeout). Requests are recorded in ``requests``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeLLM:
    def __init__(self, kind: str = "openai", script=None, default=("json", {"labels": []})):
        self.kind, self.script, self.default = kind, list(script or []), default
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                with owner._lock:
                    owner.requests.append(body)
                    owner.headers.append(dict(self.headers))
                    step = owner.script.pop(0) if owner.script else owner.default
                kind, arg = step
                if kind == "sleep":
                    time.sleep(arg)
                    kind, arg = owner.default
                if kind == "status":
                    payload = json.dumps({"error": {"type": "error", "message": f"HTTP {arg}"},
                                          "type": "error"}).encode()
                    self.send_response(arg)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                text = json.dumps(arg) if kind == "json" else arg
                payload = json.dumps(owner._reply(text, body)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):  # a client that timed out and left
                pass

        self.server = Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _reply(self, text: str, body: dict) -> dict:
        if self.kind == "openai":
            return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0,
                    "model": body.get("model", "m"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 1000, "completion_tokens": 100,
                              "total_tokens": 1100}}
        return {"id": "msg_1", "type": "message", "role": "assistant",
                "model": body.get("model", "m"), "stop_reason": "end_turn",
                "stop_sequence": None, "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": 1000, "output_tokens": 100}}

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}" + ("/v1" if self.kind == "openai" else "")

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

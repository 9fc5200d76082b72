"""An OpenAI-compatible chat-completions server on 127.0.0.1 for the judge tests.

The requested model name picks the behaviour: `good` writes a two-item rubric and passes a
trajectory when its final screen shows the word the instruction quotes; `coin` passes half of the
trajectories (repeatably, by a hash); `slow` answers after the client's timeout; `nonsense` answers prose that is not the JSON asked for. Requests are counted,
and the Authorization header of each is kept (to check what key was sent).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _reply(model: str, content: str) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


def good_answer(messages: list[dict[str, str]]) -> str:
    system, user = messages[0]["content"], messages[-1]["content"]
    if "rubric" in system.lower() and "grade" not in system.lower():
        return '```json\n["The task target is on screen", "The agent did not give up"]\n```'
    quoted = re.findall(r'"([^"]+)"', user.split("\n", 1)[0])
    final = user.split("Final screen:", 1)[-1]
    ok = bool(quoted) and quoted[0] in final
    items = [{"item": "The task target is on screen", "pass": ok},
             {"item": "The agent did not give up", "pass": True}]
    return json.dumps({"items": items, "reason": "checked the final screen"})


class _Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.owner.requests.append((body["model"], self.headers.get("Authorization")))
        model = body["model"]
        if model == "slow":
            time.sleep(self.server.owner.slow_s)
            content = "[]"
        elif model == "coin":  # a fair, repeatable coin per trajectory
            digest = hashlib.sha256(body["messages"][-1]["content"].encode()).digest()
            content = good_answer(body["messages"])
            if "items" in content:
                content = content.replace('"pass": false', '"pass": true')
                if digest[0] % 2:
                    content = content.replace('"pass": true', '"pass": false', 1)
        elif model == "nonsense":
            content = "I think the agent did a great job, probably!"
        else:
            content = good_answer(body["messages"])
        data = json.dumps(_reply(model, content)).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client timed out and left


class JudgeServer:
    """Start, use `base_url`, stop."""

    def __init__(self, slow_s: float = 3.0) -> None:
        self.requests: list[tuple[str, str | None]] = []
        self.slow_s = slow_s
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.owner = self  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

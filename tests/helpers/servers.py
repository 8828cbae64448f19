"""A local HTTP server that plays an Ollama / OpenAI-compatible model server (tests only, loopback)."""
from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ModelServerHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _json(self, code, body):
        raw = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self):
        if self.path == "/api/tags":
            return self._json(200, {"models": [{"name": "llama3.2:3b"}, {"name": "qwen2.5:7b"}]})
        if self.path == "/v1/models":
            auth = self.headers.get("Authorization", "")
            if auth != "Bearer right-key":  # echoes the key it was given, as real servers do
                return self._json(401, {"error": {"message": f"Incorrect API key provided: {auth[7:]}"}})
            return self._json(200, {"object": "list", "data": [{"id": "local-model"}]})
        self._json(404, {"error": "not found"})

    def do_POST(self):
        auth = self.headers.get("Authorization", "")
        self._json(401, {"error": {"message": f"Incorrect API key provided: {auth[7:]}"}})


@contextmanager
def serve(handler):
    """Serve ``handler`` (a ``BaseHTTPRequestHandler`` class) on 127.0.0.1 on a free port; yields the port."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()


def model_server():
    """Serve :class:`ModelServerHandler` on 127.0.0.1; yields the port."""
    return serve(ModelServerHandler)


class StreamingModelHandler(BaseHTTPRequestHandler):
    """An OpenAI-compatible ``/v1/chat/completions`` that streams (server-sent events).  A request whose last
    message contains "slowly" gets ``SLOW_PIECES`` words, ``SLOW_DELAY`` seconds apart; any other gets
    ``QUICK_REPLY`` at once."""

    protocol_version = "HTTP/1.1"
    SLOW_PIECES = 200
    SLOW_DELAY = 0.1
    QUICK_REPLY = "Noted, thank you."

    def log_message(self, *args):
        pass

    def do_GET(self):
        raw = json.dumps({"object": "list", "data": [{"id": "streamer"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_POST(self):
        import time

        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        last = (body.get("messages") or [{}])[-1].get("content", "")
        slow = "slowly" in last
        pieces = [f"word{i} " for i in range(self.SLOW_PIECES)] if slow else [self.QUICK_REPLY]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            for p in pieces:
                chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "streamer",
                         "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
                if slow:
                    time.sleep(self.SLOW_DELAY)
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client stopped reading (Ctrl-C)
            pass
        self.close_connection = True


def streaming_model_server():
    """Serve :class:`StreamingModelHandler` on 127.0.0.1; yields the port."""
    return serve(StreamingModelHandler)

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
def model_server():
    """Serve :class:`ModelServerHandler` on 127.0.0.1; yields the port."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ModelServerHandler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()

"""A tiny Hugging Face hub on 127.0.0.1 serving one model repo (tests only: no network, no real weights).

It answers what ``huggingface_hub.snapshot_download`` asks: the repo's revision info (with each file's git
blob id and, for large files, the LFS sha256) and each file under ``/<repo>/resolve/<revision>/<name>``.
"""
from __future__ import annotations

import hashlib
import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlparse

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def make_handler(repo: str, files: dict[str, bytes], lfs: set[str], corrupt: set[str] = frozenset()):
    class Hub(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _send(self, code: int, body: bytes = b"", headers: dict | None = None, head: bool = False):
            self.send_response(code)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def _route(self, head: bool):
            path = unquote(urlparse(self.path).path)
            if path.startswith(f"/api/models/{repo}/tree/"):
                tree = []
                for name, data in files.items():
                    entry = {"type": "file", "path": name, "size": len(data), "oid": git_blob_id(data)}
                    if name in lfs:
                        entry["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 134}
                    tree.append(entry)
                return self._send(200, json.dumps(tree).encode(), {"Content-Type": "application/json"}, head)
            if path.startswith(f"/api/models/{repo}"):
                siblings = []
                for name, data in files.items():
                    sib = {"rfilename": name, "blobId": git_blob_id(data), "size": len(data)}
                    if name in lfs:
                        sib["lfs"] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 134}
                    siblings.append(sib)
                body = json.dumps({"id": repo, "modelId": repo, "sha": COMMIT, "siblings": siblings}).encode()
                return self._send(200, body, {"Content-Type": "application/json"}, head)
            prefix = f"/{repo}/resolve/"
            if path.startswith(prefix):
                _rev, _, name = path[len(prefix):].partition("/")
                if name not in files:
                    return self._send(404, b"not found", {"X-Error-Code": "EntryNotFound"}, head)
                data = files[name]
                sent = data[:-1] + bytes([data[-1] ^ 1]) if name in corrupt else data
                etag = hashlib.sha256(data).hexdigest() if name in lfs else git_blob_id(data)
                headers = {"X-Repo-Commit": COMMIT, "ETag": f'"{etag}"', "Content-Type": "application/octet-stream"}
                if name in lfs:
                    headers.update({"X-Linked-Etag": f'"{etag}"', "X-Linked-Size": str(len(data))})
                return self._send(200, sent, headers, head)
            return self._send(404, b"not found", {"X-Error-Code": "RepoNotFound"}, head)

        def do_GET(self):
            self._route(False)

        def do_HEAD(self):
            self._route(True)
    return Hub


@contextmanager
def fake_hub(repo: str, files: dict[str, bytes], lfs: set[str] = frozenset(), corrupt: set[str] = frozenset()):
    """Serve ``files`` as the repo ``repo``; yields the endpoint URL (for ``HF_ENDPOINT``)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(repo, files, set(lfs), set(corrupt)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()

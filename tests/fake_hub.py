"""A local HTTP server standing in for the Hugging Face Hub (HF_ENDPOINT), for tests only.

It serves `/{repo}/resolve/{revision}/{filename}` with HEAD, GET and byte ranges, the
headers huggingface_hub reads (X-Repo-Commit, ETag), and 401 for gated repositories.
The logic under test (huggingface_hub's client and kvplan's resolver) is real.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def safetensors_bytes(tensors: dict[str, tuple[str, list[int]]]) -> bytes:
    """A real safetensors file: header (dtype, shape, offsets) + zero-filled data."""
    sizes = {"BF16": 2, "F16": 2, "F32": 4, "I32": 4, "U8": 1, "F8_E4M3": 1, "I8": 1}
    header, offset = {}, 0
    for name, (dtype, shape) in tensors.items():
        n = sizes[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + b"\0" * offset


class FakeHub:
    def __init__(self):
        self.files: dict[tuple[str, str], bytes] = {}
        self.gated: set[str] = set()
        self.requests: list[str] = []
        self.server = None

    def add(self, repo: str, filename: str, content: bytes | str | dict) -> None:
        if isinstance(content, dict):
            content = json.dumps(content)
        if isinstance(content, str):
            content = content.encode()
        self.files[(repo, filename)] = content

    def __enter__(self):
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _lookup(self):
                hub.requests.append(f"{self.command} {self.path}")
                path = self.path.split("?")[0]
                m = re.match(r"^/(?:api/models/)?([^/]+/[^/]+)/resolve/([^/]+)/(.+)$", path)
                if not m:
                    m2 = re.match(r"^/api/models/([^/]+/[^/]+)(?:/revision/([^/]+))?$", path)
                    if m2:
                        return m2.group(1), "__info__"
                    return None, None
                return m.group(1), m.group(3)

            def _send(self, body: bool):
                repo, filename = self._lookup()
                if repo in hub.gated and not self.headers.get("authorization"):
                    self.send_response(401)
                    self.send_header("X-Error-Code", "GatedRepo")
                    self.send_header("X-Error-Message", "Access to model is restricted.")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if filename == "__info__" and any(r == repo for r, _ in hub.files):
                    data = json.dumps({"id": repo, "sha": COMMIT, "siblings": [{"rfilename": f} for r, f in hub.files if r == repo]}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if body:
                        self.wfile.write(data)
                    return
                data = hub.files.get((repo, filename))
                if data is None:
                    known_repo = any(r == repo for r, _ in hub.files)
                    self.send_response(404)
                    self.send_header("X-Error-Code", "EntryNotFound" if known_repo else "RepoNotFound")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                start, end = 0, len(data) - 1
                rng = self.headers.get("range") or self.headers.get("Range")
                status = 200
                if rng:
                    m = re.match(r"bytes=(\d+)-(\d*)", rng)
                    if m:
                        start = int(m.group(1))
                        end = min(int(m.group(2)) if m.group(2) else len(data) - 1, len(data) - 1)
                        status = 206
                chunk = data[start:end + 1]
                self.send_response(status)
                self.send_header("X-Repo-Commit", COMMIT)
                self.send_header("ETag", '"' + hashlib.sha1(data).hexdigest() + '"')
                self.send_header("Content-Length", str(len(chunk)))
                if status == 206:
                    self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
                self.end_headers()
                if body:
                    self.wfile.write(chunk)

            def do_HEAD(self):
                self._send(body=False)

            def do_GET(self):
                self._send(body=True)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

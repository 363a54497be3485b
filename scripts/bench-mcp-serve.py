#!/usr/bin/env python3
"""`seekclaw mcp serve` figures: `initialize` answered from spawn, `run_task`
overhead over the provider, the first answer progress after the provider's
first token, idle RSS.

Usage: scripts/bench-mcp-serve.py [BINARY] [N]   (default target/release/seekclaw, 30)

Self-contained: a local OpenAI-compatible provider (HTTP/1.1, chunked SSE) in
this process answers every request at once with a short stream and notes when
it got the request and wrote its first and last bytes, on the same clock as
the client. The server is driven over its pipes with plain JSON-RPC lines.
"""

import http.server
import json
import os
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/seekclaw"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 30

provider_log = []  # (t_request, t_first_token, t_end) per request


def chunk(delta, finish=None, usage=None):
    body = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m1",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        body["usage"] = usage
    return f"data: {json.dumps(body)}\n\n".encode()


class Provider(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        # Each SSE chunk leaves at once (no Nagle wait for the client's ACK).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def write_chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def do_GET(self):
        body = json.dumps({"data": [{"id": "m1"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        t_req = time.monotonic()
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.write_chunk(chunk({"role": "assistant", "content": ""}))
        t_first = time.monotonic()
        self.write_chunk(chunk({"content": "hello"}))
        self.write_chunk(chunk({}, "stop", {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}))
        self.write_chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        provider_log.append((t_req, t_first, time.monotonic()))


def start_provider():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Provider)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


class Mcp:
    def __init__(self, env):
        self.t_spawn = time.monotonic()
        self.p = subprocess.Popen([BIN, "mcp", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env)
        self.buf = b""

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def read(self, timeout=30.0):
        """The next message and when its line arrived."""
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                raise TimeoutError("no message from the server")
            data = os.read(self.p.stdout.fileno(), 65536)
            if not data:
                raise EOFError("the server closed stdout")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line), time.monotonic()

    def initialize(self):
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
        msg, t = self.read()
        assert msg.get("id") == 0 and "result" in msg, msg
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return t - self.t_spawn

    def rss_kb(self):
        for line in open(f"/proc/{self.p.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def close(self):
        self.p.stdin.close()
        t = time.monotonic()
        self.p.wait(timeout=30)
        return time.monotonic() - t


def stats(name, values, unit="ms"):
    v = sorted(values)
    p90 = v[max(0, int(len(v) * 0.9) - 1)]
    print(f"{name:<44} median {statistics.median(v):8.2f} {unit}  p90 {p90:8.2f}  min {v[0]:8.2f}  (n={len(v)})")


def main():
    port = start_provider()
    home = tempfile.mkdtemp(prefix="bench-mcp-home-")
    os.chmod(home, 0o700)
    json.dump({"agent": {"maxRepairAttempts": 0}, "providers": [{
        "id": "f", "kind": "openai", "baseUrl": f"http://127.0.0.1:{port}",
        "models": [{"id": "m1", "contextWindow": 100000}]}]}, open(os.path.join(home, "config.json"), "w"))
    ws = tempfile.mkdtemp(prefix="bench-mcp-ws-")
    os.makedirs(os.path.join(ws, ".git"))
    env = dict(os.environ, SEEKCLAW_HOME=home)
    print(f"binary: {BIN}")

    # 1. `initialize` answered, from spawn (each a fresh process); exit after EOF.
    init, exits, idle = [], [], []
    for i in range(N + 2):
        m = Mcp(env)
        t = m.initialize()
        if i == N + 1:
            time.sleep(0.5)
            idle.append(m.rss_kb() / 1024)
        exit_s = m.close()
        if i >= 2:  # warm-up: page cache, first store creation
            init.append(t * 1000)
            exits.append(exit_s * 1000)
    stats("initialize answered, from spawn", init)
    stats("exit after stdin EOF (idle)", exits)

    # 2. run_task on one server: what it adds around the provider's own time.
    m = Mcp(env)
    m.initialize()
    time.sleep(0.5)
    idle_rss = m.rss_kb() / 1024
    before, token_to_progress, after, overhead, total = [], [], [], [], []
    for i in range(N + 2):
        provider_log.clear()
        t_send = time.monotonic()
        m.send({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {
            "name": "run_task", "arguments": {"prompt": f"say hello {i}", "workspace": ws},
            "_meta": {"progressToken": f"p{i}"}}})
        t_progress = None
        while True:
            msg, t = m.read()
            if msg.get("method") == "notifications/progress":
                if t_progress is None and msg["params"].get("message", "").startswith("answering"):
                    t_progress = t
                continue
            assert msg.get("id") == i + 1, msg
            assert not msg["result"].get("isError"), msg
            t_resp = t
            break
        # The provider thread notes its times just after its last write.
        deadline = time.monotonic() + 1.0
        while not provider_log and time.monotonic() < deadline:
            time.sleep(0.001)
        (t_req, t_first, t_end), = provider_log
        if i >= 2:
            before.append((t_req - t_send) * 1000)
            token_to_progress.append((t_progress - t_first) * 1000)
            after.append((t_resp - t_end) * 1000)
            overhead.append(((t_resp - t_send) - (t_end - t_req)) * 1000)
            total.append((t_resp - t_send) * 1000)
    stats("run_task: call -> provider request", before)
    stats("run_task: provider first token -> progress", token_to_progress)
    stats("run_task: provider end -> result", after)
    stats("run_task: overhead over the provider", overhead)
    stats("run_task: round trip", total)
    busy_rss = m.rss_kb() / 1024
    m.close()
    print(f"{'RSS idle after initialize':<44} {idle_rss:8.1f} MB (fresh server: {idle[0]:.1f} MB)")
    print(f"{'RSS after ' + str(N + 2) + ' run_task calls':<44} {busy_rss:8.1f} MB")


main()

#!/usr/bin/env python3
"""One-shot `seekclaw run` wall time, two binaries side by side, interleaved.

Usage: scripts/bench-run-oneshot.py OLD_BINARY NEW_BINARY [N]
Needs an OpenAI-compatible endpoint at http://127.0.0.1:18799/v1 (any server
that streams a short answer; e.g. a few lines of http.server). Each binary gets
its own temporary home; the first two rounds are warm-up.
"""
import subprocess, time, os, statistics, sys, tempfile, json
old, new = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 20
homes = {}
for name in ("old", "new"):
    h = tempfile.mkdtemp(prefix=f"rb-{name}-")
    os.chmod(h, 0o700)
    json.dump({"providers": [{"id": "f", "kind": "openai", "baseUrl": "http://127.0.0.1:18799/v1",
               "models": [{"id": "m1"}]}]}, open(os.path.join(h, "config.json"), "w"))
    homes[name] = h
ws = tempfile.mkdtemp(prefix="rb-ws-")
os.makedirs(os.path.join(ws, ".git"))
times = {"old": [], "new": []}
for i in range(n + 2):
    for name, binp in (("old", old), ("new", new)):
        env = dict(os.environ, SEEKCLAW_HOME=homes[name])
        t = time.perf_counter()
        r = subprocess.run([binp, "run", "--workspace", ws, "say hi"], env=env, capture_output=True)
        dt = (time.perf_counter() - t) * 1000
        assert r.returncode == 0, r.stderr
        if i >= 2:
            times[name].append(dt)
for name in ("old", "new"):
    v = sorted(times[name])
    print(f"{name}: median {statistics.median(v):.1f} ms, p90 {v[int(len(v)*0.9)-1]:.1f} ms, min {v[0]:.1f} ms (n={len(v)})")
print(f"ratio new/old (median): {statistics.median(times['new'])/statistics.median(times['old']):.3f}")

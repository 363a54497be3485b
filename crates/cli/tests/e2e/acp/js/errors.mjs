// Drives `seekclaw acp` with the official ACP TypeScript client into the
// engine's refusals and checks the JSON-RPC code of each (never -32603 for
// a request the editor can act on). Usage:
//   node errors.mjs <seekclaw> <home> <workspace>
// It hands the test (acp/errors.rs) a step on stdout (`{"step": …}`) and
// waits for a line on stdin before going on: the test then holds the
// session's turn lock as another seekclaw process would, or deletes the
// session from the store. Exit 0 when every check passed.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

import * as acp from "@agentclientprotocol/sdk";
import Ajv2020 from "ajv/dist/2020.js";

const [bin, home, ws] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const schema = JSON.parse(
  readFileSync(require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json"), "utf8"),
);
const whole = new Ajv2020({ strict: false, validateFormats: false }).compile(schema);

const stdin = createInterface({ input: process.stdin });
const lines = stdin[Symbol.asyncIterator]();
async function step(name, sessionId) {
  console.log(JSON.stringify({ step: name, sessionId }));
  const { value, done } = await lines.next();
  assert.ok(!done && value.trim() === "go", `the test answered step ${name}: ${value}`);
}

const child = spawn(bin, ["acp"], {
  env: { ...process.env, SEEKCLAW_HOME: home },
  stdio: ["pipe", "pipe", "inherit"],
});
let buffered = "";
const input = new ReadableStream({
  start(controller) {
    child.stdout.on("data", (chunk) => {
      buffered += chunk.toString("utf8");
      let nl;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!line.trim()) continue;
        assert.ok(whole(JSON.parse(line)), `not an ACP message: ${line}`);
        controller.enqueue(new TextEncoder().encode(line + "\n"));
      }
    });
    child.stdout.on("end", () => {
      try {
        controller.close();
      } catch {}
    });
  },
});
const output = new WritableStream({
  write(chunk) {
    return new Promise((ok, fail) => child.stdin.write(chunk, (e) => (e ? fail(e) : ok())));
  },
  close() {
    child.stdin.end();
  },
});

/// The error a request was refused with (fails if it succeeded).
async function refused(request) {
  try {
    const r = await request;
    assert.fail(`expected an error, got ${JSON.stringify(r)}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    return e;
  }
}

const seen = {};
await acp
  .client({ name: "seekclaw-e2e-errors" })
  .onNotification(acp.methods.client.session.update, () => {})
  .connectWith(acp.ndJsonStream(output, input), async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
    const prompt = (text) =>
      ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });

    // Nothing to say: the params are wrong.
    let e = await refused(prompt("   "));
    assert.equal(e.code, -32602, e.message);
    assert.deepEqual(e.data, { param: "message" });
    assert.match(e.message, /prompt is empty/);
    seen.empty = e.code;

    // Another process holds the session's turn: the request cannot be
    // served now, and the error names the session.
    await step("lock", sessionId);
    e = await refused(prompt("hello"));
    assert.equal(e.code, -32600, e.message);
    assert.equal(e.data?.sessionId, sessionId);
    assert.match(e.message, /running a turn in another seekclaw process/);
    assert.doesNotMatch(e.message, /agent\.steer|agent\.cancel/);
    seen.busy = e.code;

    // Free again: the turn runs and stores the session.
    await step("unlock", sessionId);
    const r = await prompt("hello");
    assert.equal(r.stopReason, "end_turn");

    // Deleted behind the editor's back: the session is not found.
    await step("delete", sessionId);
    e = await refused(prompt("again"));
    assert.equal(e.code, -32002, e.message);
    assert.equal(e.data?.sessionId, sessionId);
    seen.missing = e.code;
  });
child.stdin.end();
await new Promise((r) => child.on("exit", r));
stdin.close();
console.log(JSON.stringify({ ok: true, ...seen }));

// Drives `seekclaw acp` with the official ACP TypeScript client's unstable
// entrypoint (where `session/fork` lives in ACP v1) and checks every line
// the agent sends against the unstable v1 schema of the same package:
// the agent advertises `sessionCapabilities.fork`, a prompt is answered, the
// session is forked, and the fork answers a prompt of its own. Usage:
//   node fork.mjs <seekclaw> <home> <workspace>
// Prints {"ok":true,"source":…,"fork":…} when every check passed.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

import * as acp from "@agentclientprotocol/sdk/unstable";
import Ajv2020 from "ajv/dist/2020.js";

const [bin, home, ws] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const schema = JSON.parse(
  readFileSync(require.resolve("@agentclientprotocol/sdk/schema/v1/schema.unstable.json"), "utf8"),
);
const whole = new Ajv2020({ strict: false, validateFormats: false }).compile(schema);

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

const said = new Map(); // sessionId -> the agent's text
const result = {};
await acp
  .client({ name: "seekclaw-e2e-fork" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    const u = params.update;
    if (u.sessionUpdate === "agent_message_chunk") {
      said.set(params.sessionId, (said.get(params.sessionId) ?? "") + u.content.text);
    }
  })
  .connectWith(acp.ndJsonStream(output, input), async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    assert.deepEqual(init.agentCapabilities.sessionCapabilities.fork, {});
    const { sessionId: source } = await ctx.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
    const prompt = (sessionId, text) =>
      ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    assert.equal((await prompt(source, "remember the word plover")).stopReason, "end_turn");
    assert.equal(said.get(source), "Noted: plover.");

    const forked = await ctx.request(acp.methods.agent.session.fork, { sessionId: source, cwd: ws, mcpServers: [] });
    assert.notEqual(forked.sessionId, source);
    assert.equal(forked.modes.currentModeId, "edit");
    assert.equal((await prompt(forked.sessionId, "which word, in the fork?")).stopReason, "end_turn");
    assert.equal(said.get(forked.sessionId), "Still plover.");

    // An unknown source is refused as ACP's "resource not found".
    const e = await ctx
      .request(acp.methods.agent.session.fork, { sessionId: "nope", cwd: ws, mcpServers: [] })
      .then(() => assert.fail("forked an unknown session"), (err) => err);
    assert.equal(e.code, -32002);
    Object.assign(result, { source, fork: forked.sessionId });
  });
child.stdin.end();
await new Promise((ok) => child.on("exit", ok));
console.log(JSON.stringify({ ok: true, ...result }));

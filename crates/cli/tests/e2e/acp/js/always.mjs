// Drives `seekclaw acp` with the official ACP TypeScript client (issue 39):
// a call the engine can cover with a permission rule is asked with an
// `allow_always` option that names the rule; choosing it runs the call and
// saves the rule, so the same call in the next prompt is not asked. Every
// line the agent sends is checked against the ACP v1 schema. Usage:
//   node always.mjs <seekclaw> <home> <workspace>
// Prints {"ok":true,"rule":…} when every check passed.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

import * as acp from "@agentclientprotocol/sdk";
import Ajv2020 from "ajv/dist/2020.js";

const [bin, home, ws] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const schema = JSON.parse(
  readFileSync(require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json"), "utf8"),
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

const permissions = [];
const thoughts = [];
const result = {};
await acp
  .client({ name: "seekclaw-e2e-always" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === "agent_thought_chunk") thoughts.push(params.update.content.text);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params);
    const always = params.options.find((o) => o.kind === "allow_always");
    assert.ok(always, `an allow_always option in ${JSON.stringify(params.options)}`);
    return { outcome: { outcome: "selected", optionId: always.optionId } };
  })
  .connectWith(acp.ndJsonStream(output, input), async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
    const prompt = (text) =>
      ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    const ran = path.join(ws, "ran.txt");

    assert.equal((await prompt("write it")).stopReason, "end_turn");
    assert.equal(permissions.length, 1);
    assert.deepEqual(permissions[0].options.map((o) => o.kind), ["allow_once", "allow_always", "reject_once"]);
    const always = permissions[0].options[1];
    const rule = /`([^`]+)`/.exec(always.name)?.[1];
    assert.ok(rule && rule.startsWith("Bash("), `the rule is named: ${always.name}`);
    assert.match(always.name, /saved in the (workspace|user) config/);
    assert.ok(existsSync(ran), "the call ran");

    // The same call again: not asked.
    rmSync(ran);
    assert.equal((await prompt("write it again")).stopReason, "end_turn");
    assert.equal(permissions.length, 1, "the saved rule answered");
    assert.ok(existsSync(ran), "the call ran again");
    Object.assign(result, { rule, thoughts });
  });
child.stdin.end();
await new Promise((ok) => child.on("exit", ok));
console.log(JSON.stringify({ ok: true, ...result }));

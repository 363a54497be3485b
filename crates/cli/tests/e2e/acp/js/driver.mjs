// Drives `seekclaw acp` with the official ACP TypeScript client through a
// full session, and checks every line the agent sends against the ACP v1
// JSON schema shipped in the same package. Usage:
//   node driver.mjs <seekclaw> <home> <workspace>
// The e2e test (acp/session.rs) scripts the provider's replies in the order
// this driver asks for them. Exit 0 when every check passed.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Readable, Writable } from "node:stream";

import * as acp from "@agentclientprotocol/sdk";
import Ajv2020 from "ajv/dist/2020.js";

const [bin, home, ws] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const schema = JSON.parse(
  readFileSync(require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json"), "utf8"),
);

// --- schema validation of everything the agent sends ---------------------
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schema, "acp");
const def = (name) => {
  const v = ajv.getSchema(`acp#/$defs/${name}`);
  assert.ok(v, `schema has ${name}`);
  return v;
};
const whole = ajv.compile(schema);
const RESULT = {
  initialize: "InitializeResponse",
  authenticate: "AuthenticateResponse",
  "session/new": "NewSessionResponse",
  "session/load": "LoadSessionResponse",
  "session/set_mode": "SetSessionModeResponse",
  "session/prompt": "PromptResponse",
};
const AGENT_REQUEST = {
  "session/request_permission": "RequestPermissionRequest",
  "fs/read_text_file": "ReadTextFileRequest",
  "fs/write_text_file": "WriteTextFileRequest",
};
let checked = 0;
function validate(msg, sentMethods) {
  const check = (name, value) => {
    const v = def(name);
    if (!v(value)) {
      throw new Error(`not a valid ${name}: ${JSON.stringify(value)}\n${ajv.errorsText(v.errors)}`);
    }
    checked++;
  };
  if (!whole(msg)) throw new Error(`not an ACP message: ${JSON.stringify(msg)}\n${ajv.errorsText(whole.errors)}`);
  if (msg.method && msg.id !== undefined) {
    check(AGENT_REQUEST[msg.method] ?? assert.fail(`unexpected agent request ${msg.method}`), msg.params);
  } else if (msg.method) {
    assert.equal(msg.method, "session/update");
    check("SessionNotification", msg.params);
  } else if (msg.error) {
    check("Error", msg.error);
  } else {
    const method = sentMethods.get(msg.id);
    assert.ok(method, `a response to a request we sent: ${JSON.stringify(msg)}`);
    check(RESULT[method], msg.result);
  }
}

// --- the agent process, with a tap on both directions --------------------
function start(name) {
  const child = spawn(bin, ["acp"], {
    env: { ...process.env, SEEKCLAW_HOME: home },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const sent = new Map();
  const log = []; // what the agent sent, in order
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
          const msg = JSON.parse(line);
          validate(msg, sent);
          log.push(msg);
          try {
            controller.enqueue(new TextEncoder().encode(line + "\n"));
          } catch {}
        }
      });
      // The client may have closed its side first.
      child.stdout.on("end", () => {
        try {
          controller.close();
        } catch {}
      });
    },
  });
  const output = new WritableStream({
    write(chunk) {
      for (const line of new TextDecoder().decode(chunk).split("\n")) {
        if (!line.trim()) continue;
        const msg = JSON.parse(line);
        if (msg.method && msg.id !== undefined) sent.set(msg.id, msg.method);
      }
      return new Promise((ok, fail) => child.stdin.write(chunk, (e) => (e ? fail(e) : ok())));
    },
    close() {
      child.stdin.end();
    },
  });
  return { name, child, log, stream: acp.ndJsonStream(output, input) };
}

// --- the client -----------------------------------------------------------
const buffers = new Map(); // the editor's unsaved buffers, by absolute path
const fsCalls = [];
const permissions = [];
let permissionAnswers = [];
const updates = new Map(); // sessionId -> updates

function makeClient() {
  return acp
    .client({ name: "seekclaw-e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (!updates.has(params.sessionId)) updates.set(params.sessionId, []);
      updates.get(params.sessionId).push(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      const answer = permissionAnswers.shift();
      assert.ok(answer, `an answer for permission request ${JSON.stringify(params)}`);
      return answer;
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      fsCalls.push(["read", params.path]);
      const text = buffers.get(params.path);
      if (text === undefined) throw acp.RequestError.resourceNotFound(params.path);
      return { content: text };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      fsCalls.push(["write", params.path]);
      buffers.set(params.path, params.content);
      return {};
    });
}

const of = (sid, kind) => (updates.get(sid) ?? []).filter((u) => u.sessionUpdate === kind);
const text = (sid, kind) => of(sid, kind).map((u) => u.content.text).join("");
const until = async (pred, what, ms = 20000) => {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

// --- connection 1: the editor offers fs ----------------------------------
const notes = path.join(ws, "notes.txt");
buffers.set(notes, "the word is plover (unsaved)\n");
let sessionA;
const one = start("one");
await makeClient().connectWith(one.stream, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.equal(init.agentCapabilities.promptCapabilities.image, true);
  assert.equal(init.agentCapabilities.promptCapabilities.embeddedContext, true);
  await ctx.request(acp.methods.agent.authenticate, { methodId: "none" });

  const created = await ctx.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
  sessionA = created.sessionId;
  assert.equal(created.modes.currentModeId, "edit");
  assert.deepEqual(created.modes.availableModes.map((m) => m.id), ["plan", "readonly", "edit", "auto"]);
  const prompt = (sessionId, prompt) => ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt });

  // 1. A read through the editor: the model sees the unsaved buffer.
  let r = await prompt(sessionA, [
    { type: "text", text: "what is the word?" },
    { type: "resource_link", uri: `file://${notes}`, name: "notes.txt" },
  ]);
  assert.equal(r.stopReason, "end_turn");
  assert.deepEqual(fsCalls.shift(), ["read", notes]);
  assert.equal(text(sessionA, "agent_thought_chunk"), "look first");
  assert.equal(text(sessionA, "agent_message_chunk"), "Reading.The word is plover.");
  const [call] = of(sessionA, "tool_call");
  assert.equal(call.kind, "read");
  assert.equal(call.status, "in_progress");
  assert.deepEqual(call.locations, [{ path: notes }]);
  const done = of(sessionA, "tool_call_update").at(-1);
  assert.equal(done.status, "completed");
  assert.match(done.content[0].content.text, /plover \(unsaved\)/);
  assert.equal(of(sessionA, "available_commands_update")[0].availableCommands[0].name, "compact");

  // 2. A write asks first; allowed, it goes to the editor, with its diff.
  permissionAnswers.push({ outcome: { outcome: "selected", optionId: "allow_once" } });
  r = await prompt(sessionA, [{ type: "text", text: "write out.txt" }]);
  assert.equal(r.stopReason, "end_turn");
  assert.equal(permissions.length, 1);
  assert.deepEqual(permissions[0].options.map((o) => o.kind), ["allow_once", "allow_always", "reject_once"]);
  assert.equal(permissions[0].toolCall.kind, "edit");
  const out = path.join(ws, "out.txt");
  assert.deepEqual(fsCalls.shift(), ["write", out]);
  assert.equal(buffers.get(out), "hello\n");
  assert.ok(!existsSync(out), "the write went to the editor, not the disk");
  const diff = of(sessionA, "tool_call_update").flatMap((u) => u.content ?? []).find((c) => c.type === "diff");
  assert.deepEqual(diff, { type: "diff", path: out, oldText: null, newText: "hello\n" });

  // 3. Rejected with a reason: the call does not run, the model reads why.
  permissionAnswers.push({ outcome: { outcome: "selected", optionId: "reject_once" }, _meta: { reason: "keep my notes" } });
  r = await prompt(sessionA, [{ type: "text", text: "overwrite the notes" }]);
  assert.equal(r.stopReason, "end_turn");
  assert.equal(permissions.length, 2);
  assert.equal(fsCalls.length, 0, "nothing was read or written");
  assert.equal(buffers.get(notes), "the word is plover (unsaved)\n");
  assert.equal(of(sessionA, "tool_call_update").at(-1).status, "failed");

  // 4. Auto mode asks nothing; the plan tool shows as a plan.
  await assert.rejects(
    ctx.request(acp.methods.agent.session.setMode, { sessionId: sessionA, modeId: "yolo" }),
    (e) => e.code === -32602 && /yolo/.test(e.message),
  );
  await ctx.request(acp.methods.agent.session.setMode, { sessionId: sessionA, modeId: "auto" });
  r = await prompt(sessionA, [{ type: "text", text: "plan and write" }]);
  assert.equal(r.stopReason, "end_turn");
  assert.equal(permissions.length, 2, "auto mode asked nothing");
  assert.deepEqual(fsCalls.splice(0), [["write", path.join(ws, "auto.txt")]]);
  const [plan] = of(sessionA, "plan");
  assert.deepEqual(plan.entries.map((e) => [e.content, e.status]), [["write it", "in_progress"], ["check it", "pending"]]);

  // 5. Two sessions at once: cancelling one leaves the other running.
  const sessionB = (await ctx.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] })).sessionId;
  const before = of(sessionA, "agent_message_chunk").length;
  const slow = prompt(sessionA, [{ type: "text", text: "count slowly" }]);
  await until(() => of(sessionA, "agent_message_chunk").length > before, "the slow stream's first chunk");
  const other = prompt(sessionB, [{ type: "text", text: "hello B" }]);
  await until(() => text(sessionB, "agent_message_chunk") === "B answer", "session B's answer");
  const cancelledAt = Date.now();
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId: sessionA });
  assert.equal((await slow).stopReason, "cancelled");
  assert.ok(Date.now() - cancelledAt < 2000, "cancelled promptly");
  assert.equal((await other).stopReason, "end_turn");
  assert.ok(of(sessionA, "agent_message_chunk").length - before < 40, "the stream stopped early");

  // Errors are JSON-RPC errors naming what is wrong.
  await assert.rejects(prompt("nope", [{ type: "text", text: "x" }]), (e) => e.code === -32002);
  await assert.rejects(
    prompt(sessionA, [{ type: "audio", data: "", mimeType: "audio/wav" }]),
    (e) => e.code === -32602 && /audio/.test(e.message),
  );
  await assert.rejects(ctx.request("session/archive", { sessionId: sessionA }), (e) => e.code === -32601);
  // session/fork exists (unstable in ACP v1): a missing cwd is a bad param.
  await assert.rejects(ctx.request("session/fork", { sessionId: sessionA }), (e) => e.code === -32602);
});
one.child.stdin.end();
await new Promise((r) => one.child.on("exit", r));

// --- connection 2: load and replay, no fs offered (disk) -----------------
const two = start("two");
await makeClient().connectWith(two.stream, async (ctx) => {
  await ctx.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  updates.delete(sessionA);
  const loaded = await ctx.request(acp.methods.agent.session.load, { sessionId: sessionA, cwd: ws, mcpServers: [] });
  assert.equal(loaded.modes.currentModeId, "edit");
  // The replay came before the answer.
  const answerAt = two.log.findIndex((m) => m.result && m.result.modes);
  const replayed = two.log.slice(0, answerAt).filter((m) => m.method === "session/update");
  assert.ok(replayed.length >= 10, `replayed ${replayed.length} updates`);
  assert.match(text(sessionA, "user_message_chunk"), /what is the word\?.*write out\.txt.*overwrite the notes/s);
  assert.match(text(sessionA, "agent_message_chunk"), /The word is plover\./);
  const calls = of(sessionA, "tool_call").map((c) => c.kind);
  assert.deepEqual(calls.slice(0, 3), ["read", "edit", "edit"]);
  const diff = of(sessionA, "tool_call_update").flatMap((u) => u.content ?? []).find((c) => c.type === "diff");
  assert.equal(diff.newText, "hello\n");
  const r = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId: sessionA,
    prompt: [{ type: "text", text: "still there?" }],
  });
  assert.equal(r.stopReason, "end_turn");
  assert.equal(text(sessionA, "agent_message_chunk").split("yes, still here").length, 2);
});
two.child.stdin.end();
await new Promise((r) => two.child.on("exit", r));
assert.ok(checked > 50, `validated ${checked} messages`);
console.log(JSON.stringify({ ok: true, validated: checked, sessionA }));

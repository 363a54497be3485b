"""Drives `seekclaw mcp serve` with the official MCP Python SDK's client.

Usage: sdk_client.py SPEC_JSON, where SPEC_JSON is
{"bin", "home", "workspace", "mode": "legacy" | "auto", "scenario": "full" | "cancel"}.
Prints one JSON report on stdout; the Rust test makes the assertions.
"""

import json
import sys
import time

import anyio
from mcp import Client, MCPError, StdioServerParameters


def dump(result):
    return result.model_dump(by_alias=True, exclude_none=True, mode="json")


async def full(client, ws, report):
    tools = await client.list_tools()
    report["tools"] = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools.tools]
    progress = []

    async def on_progress(value, total, message):
        progress.append([value, total, message])

    first = await client.call_tool(
        "run_task", {"prompt": "what is the word?", "workspace": ws}, progress_callback=on_progress
    )
    report["first"] = dump(first)
    report["progress"] = progress
    sid = first.structured_content["sessionId"]
    second = await client.call_tool(
        "run_task", {"prompt": "and again", "workspace": ws, "sessionId": sid, "mode": "readonly"}
    )
    report["second"] = dump(second)
    report["list"] = dump(await client.call_tool("session_list", {"workspace": ws}))
    report["get"] = dump(await client.call_tool("session_get", {"sessionId": sid, "lastMessages": 3}))
    report["search"] = dump(await client.call_tool("session_search", {"query": "plover"}))
    bad = {
        "no_workspace": ("run_task", {"prompt": "x"}),
        "relative": ("run_task", {"prompt": "x", "workspace": "some/dir"}),
        "missing_dir": ("run_task", {"prompt": "x", "workspace": ws + "/nowhere"}),
        "blank": ("run_task", {"prompt": "  ", "workspace": ws}),
        "bad_mode": ("run_task", {"prompt": "x", "workspace": ws, "mode": "fast"}),
        "typo": ("run_task", {"prompt": "x", "workspace": ws, "session_id": sid}),
        "no_session": ("run_task", {"prompt": "x", "workspace": ws, "sessionId": "nope"}),
        "get_unknown": ("session_get", {"sessionId": "nope"}),
        "search_limit": ("session_search", {"query": "plover", "limit": 0}),
        "search_empty": ("session_search", {"query": "** --"}),
    }
    report["errors"] = {}
    for key, (tool, args) in bad.items():
        report["errors"][key] = dump(await client.call_tool(tool, args))
    try:
        await client.call_tool("dance", {})
        report["unknown_tool"] = "no error"
    except MCPError as e:
        report["unknown_tool"] = {"code": e.error.code, "message": e.error.message}
    # Still serving after all of that.
    report["after"] = dump(await client.call_tool("session_list", {}))


async def cancel(client, ws, report):
    progress = []
    answering = anyio.Event()

    async def on_progress(value, total, message):
        progress.append(message)
        if message.startswith("answering"):
            answering.set()

    async with anyio.create_task_group() as tg:

        async def call():
            result = await client.call_tool(
                "run_task", {"prompt": "count slowly", "workspace": ws}, progress_callback=on_progress
            )
            report["unexpected_result"] = dump(result)

        tg.start_soon(call)
        with anyio.fail_after(30):
            await answering.wait()
        started = time.monotonic()
        # Abandoning the call sends `notifications/cancelled`.
        tg.cancel_scope.cancel()
    report["progress"] = progress
    sessions = []
    with anyio.fail_after(30):
        while True:
            listed = await client.call_tool("session_list", {"workspace": ws})
            sessions = listed.structured_content["sessions"]
            if sessions and not sessions[0]["running"] and sessions[0]["turns"] == 1:
                break
            await anyio.sleep(0.02)
    report["cancel_ms"] = (time.monotonic() - started) * 1000
    sid = sessions[0]["sessionId"]
    report["get"] = dump(await client.call_tool("session_get", {"sessionId": sid}))
    report["next"] = dump(
        await client.call_tool("run_task", {"prompt": "go on", "workspace": ws, "sessionId": sid})
    )


async def main():
    spec = json.loads(sys.argv[1])
    server = StdioServerParameters(
        command=spec["bin"], args=["mcp", "serve"], env={"SEEKCLAW_HOME": spec["home"], "PATH": "/usr/bin:/bin"}
    )
    report = {}
    async with Client(server, mode=spec["mode"]) as client:
        report["protocol"] = client.session.protocol_version
        if spec["scenario"] == "full":
            await full(client, spec["workspace"], report)
        else:
            await cancel(client, spec["workspace"], report)
    print(json.dumps(report))


anyio.run(main)

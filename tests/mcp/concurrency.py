"""An assistant that edits notes over MCP while someone else writes them on
disk: `N` appends (`mcp <i>`), each made to the version it read, a conflict
read again and retried. Prints one JSON line: what was acknowledged and how
many conflicts it met.

    python3 concurrency.py URL TOKEN N NOTE...
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


async def main():
    url, token, n, notes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    headers = {"Authorization": f"Bearer {token}"}
    acknowledged, conflicts = [], 0
    async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
        async with Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120) as client:
            for i in range(n):
                note = notes[i % len(notes)]
                while True:
                    r = await client.call_tool("read_note", {"note": note})
                    version = r.structured_content["version"]
                    r = await client.call_tool("edit_note", {"note": note, "operation": "append", "content": f"mcp {i}", "version": version})
                    if not r.is_error:
                        acknowledged.append([note, i])
                        break
                    code = (r.structured_content or {}).get("error", {}).get("code")
                    if code != "conflict":
                        raise AssertionError(f"edit_note failed: {r.structured_content}")
                    conflicts += 1
    print(json.dumps({"acknowledged": acknowledged, "conflicts": conflicts}))


asyncio.run(main())

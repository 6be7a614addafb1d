"""The stateful example (examples/stateful.rs) driven by the official Python
MCP SDK: a change one call makes to the service's state is seen by the next
call, and each process has a state of its own.

Run by .ci/run after `cargo test --workspace` built the example;
TOOLSCHEMA_STATEFUL names it.
"""

import asyncio
import os
import pathlib
import re
import subprocess

from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = os.environ.get(
    "TOOLSCHEMA_STATEFUL", str(ROOT / "target" / "debug" / "examples" / "stateful")
)


class Served:
    def __enter__(self):
        self.process = subprocess.Popen(
            [EXAMPLE, "serve", "--bind", "127.0.0.1:0"],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for line in self.process.stderr:
            match = re.match(r"\S+ is serving on (http://\S+)", line)
            if match:
                self.url = match.group(1) + "/mcp"
                break
        return self

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait()


async def level(client, sku):
    answer = await client.call_tool("stock.level", {"sku": sku})
    assert not answer.is_error, answer
    return answer.structured_content["quantity"]


def test_a_change_to_the_state_is_seen_by_the_next_call_and_each_process_has_its_own():
    async def main(first, second):
        async with Client(streamable_http_client(first), mode="legacy") as client:
            names = sorted(tool.name for tool in (await client.list_tools()).tools)
            assert names == ["stock.add", "stock.level"], names
            assert await level(client, "A-1") == 0
            added = await client.call_tool("stock.add", {"sku": "A-1", "quantity": 3})
            assert added.structured_content == {"sku": "A-1", "quantity": 3}, added
            await client.call_tool("stock.add", {"sku": "A-1", "quantity": 4})
            assert await level(client, "A-1") == 7
            refused = await client.call_tool("stock.add", {"sku": "A-1", "quantity": 0})
            assert refused.is_error, refused
            assert await level(client, "A-1") == 7
        # A new connection sees the same state; another process its own.
        async with Client(streamable_http_client(first), mode="2026-07-28") as client:
            assert await level(client, "A-1") == 7
        async with Client(streamable_http_client(second), mode="legacy") as client:
            assert await level(client, "A-1") == 0

    with Served() as first, Served() as second:
        asyncio.run(main(first.url, second.url))

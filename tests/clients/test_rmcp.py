"""An rmcp server whose tools toolschema derives (rmcp/examples/notebook.rs),
driven by the official Python MCP SDK over stdio: what it lists, what it
answers (the SDK checks each structured result against the tool's output
schema), and every kind of refusal, each an isError result naming its field
before the tool's body runs.

Run by .ci/run after `cargo test --workspace` built the example;
TOOLSCHEMA_RMCP_NOTEBOOK names it.
"""

import asyncio
import os
import pathlib

from mcp import Client, StdioServerParameters

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = os.environ.get(
    "TOOLSCHEMA_RMCP_NOTEBOOK", str(ROOT / "target" / "debug" / "examples" / "notebook")
)

# Each breaks one rule of the listed schema, and the field it names.
REFUSED = [
    ("notes.add", {"title": "x" * 41}, "/title"),
    ("notes.add", {"title": ""}, "/title"),
    ("notes.add", {"title": "a", "tags": ["1", "2", "3", "4", "5", "6"]}, "/tags"),
    ("notes.add", {"title": "a", "colour": "red"}, "colour"),
    ("notes.add", {"tags": []}, "title"),
    ("notes.add", {"title": 7}, "/title"),
    ("notes.list", {"limit": 0}, "/limit"),
    ("notes.list", {"limit": 51}, "/limit"),
    ("notes.list", {"limit": "ten"}, "/limit"),
    ("notes.get", {"id": "{00000000-0000-0000-0000-000000000000}"}, "/id"),
    ("notes.get", {"id": "not an id"}, "/id"),
]


def test_the_listing_is_the_derived_one_and_every_bad_call_is_refused_at_its_field():
    async def main(mode):
        params = StdioServerParameters(command=EXAMPLE, cwd=str(ROOT))
        async with Client(params, mode=mode) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert sorted(tools) == ["notes.add", "notes.get", "notes.list"], sorted(tools)
            add = tools["notes.add"].input_schema
            assert add["properties"]["title"]["maxLength"] == 40, add
            assert add["properties"]["tags"]["maxItems"] == 5, add
            assert add["additionalProperties"] is False, add
            assert add["required"] == ["title"], add
            assert tools["notes.list"].input_schema["properties"]["limit"]["maximum"] == 50
            assert tools["notes.get"].input_schema["properties"]["id"]["format"] == "uuid"

            added = await client.call_tool("notes.add", {"title": "Groceries", "tags": ["home"]})
            assert not added.is_error, added
            note = added.structured_content
            assert note["title"] == "Groceries" and note["tags"] == ["home"], note
            got = await client.call_tool("notes.get", {"id": note["id"]})
            assert got.structured_content == note, got
            listed = await client.call_tool("notes.list", {"limit": 10})
            assert listed.structured_content == {"notes": [note]}, listed

            for tool, arguments, field in REFUSED:
                refused = await client.call_tool(tool, arguments)
                assert refused.is_error, (tool, arguments, refused)
                text = "".join(block.text for block in refused.content)
                assert text.startswith(f"The arguments for `{tool}` were refused:"), text
                assert field in text, (field, text)
            # None of the refused calls ran: still one note.
            listed = await client.call_tool("notes.list", {"limit": 50})
            assert len(listed.structured_content["notes"]) == 1, listed

    # The handshake era and the 2026-07-28 revision, as rmcp 3.11 serves both.
    for mode in ["legacy", "2026-07-28"]:
        asyncio.run(main(mode))

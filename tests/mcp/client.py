"""Drives mindnet's MCP server with the official Python SDK (`mcp` on PyPI),
a client we did not write, over stdio or streamable HTTP, on a copy of the
demo vault that was imported before.

    python3 client.py stdio <mindnet binary> <vault>
    python3 client.py http <url of /mcp> [token]

MCP_MODE picks the protocol: `legacy` (the initialize handshake) or `auto`
(the SDK's default: `server/discover`, falling back to initialize).
Prints one line per check and `ok` at the end; any failed check raises.
"""

import asyncio
import json
import os
import sys

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

# The tools the operation table declares, as the schema snapshot holds
# them (crates/mindnet-server/tests/schemas.rs keeps it equal to the table).
SNAPSHOT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "../../crates/mindnet-server/tests/data/mcp-tools.json")
with open(SNAPSHOT, encoding="utf-8") as f:
    DECLARED = {t["name"]: t for t in json.load(f)}
TOOLS = set(DECLARED)


def check(cond, what, detail=""):
    if not cond:
        raise AssertionError(f"{what}: {detail}")
    print(f"✓ {what}")


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def call(client, name, args):
    return await client.call_tool(name, args)


async def tool_error(client, name, args, code):
    r = await call(client, name, args)
    check(r.is_error, f"{name} {json.dumps(args, ensure_ascii=False)} is a tool error", text_of(r))
    got = (r.structured_content or {}).get("error", {}).get("code")
    check(got == code, f"… with code {code}", f"{got}: {text_of(r)}")
    return text_of(r)


async def run(client):
    check(client.server_info.name == "mindnet", "server info", client.server_info)
    print(f"  protocol {client.protocol_version}")

    tools = (await client.list_tools()).tools
    by_name = {t.name: t for t in tools}
    check(set(by_name) == TOOLS, f"the {len(TOOLS)} tools of the table are listed", sorted(by_name))
    for t in tools:
        check(
            t.input_schema.get("type") == "object" and t.description,
            f"{t.name} has a schema and a description",
        )
        a = t.annotations
        declared = DECLARED[t.name]["annotations"]["readOnlyHint"]
        check(a is not None and a.read_only_hint == declared, f"{t.name} annotations", a)
    check(by_name["write_note"].annotations.destructive_hint is True, "write_note is marked destructive")
    check(by_name["search"].annotations.read_only_hint is True, "search is marked read-only")
    check(by_name["search"].input_schema["required"] == ["query"], "search needs a query")

    # search: hits with title, path, snippet, score and reasons.
    r = await call(client, "search", {"query": "Warum haben wir Qdrant als Vektordatenbank gewählt?", "k": 3})
    check(not r.is_error, "search answers", text_of(r))
    hits = r.structured_content["hits"]
    check(0 < len(hits) <= 3, "search returns at most k hits", len(hits))
    best = hits[0]
    check(best["title"] == "Qdrant als Vektordatenbank", "the best hit is the Qdrant decision", best["title"])
    for field in ("path", "text", "score", "reasons"):
        check(field in best, f"a hit carries `{field}`")
    check(best["reasons"], "the best hit has reasons", best)
    check("why:" in text_of(r) and best["path"] in text_of(r), "the text names the path and the reasons", text_of(r))

    # search filters: only decisions.
    r = await call(client, "search", {"query": "Entscheidung", "filters": {"type": ["decision"]}, "k": 10})
    types = {h["type"] for h in r.structured_content["hits"]}
    check(types == {"decision"}, "the type filter holds", types)

    # ask: the chain as text, the paths, the subgraph and Mermaid.
    r = await call(client, "ask", {"question": "Warum haben wir Qdrant als Vektordatenbank gewählt?"})
    check(not r.is_error, "ask answers", text_of(r))
    s = r.structured_content
    check(s["paths"] and s["paths"][0]["steps"], "ask returns causal paths", s.get("paths"))
    check(s["subgraph"]["nodes"] and s["subgraph"]["edges"], "ask returns the subgraph")
    check("graph LR" in s["mermaid"] and "```mermaid" in text_of(r), "ask returns a Mermaid diagram")
    check("⟵" in text_of(r), "the chain is told as text", text_of(r)[:300])

    # read_note by title, by alias, by path, one section.
    r = await call(client, "read_note", {"note": "Qdrant als Vektordatenbank"})
    note = r.structured_content
    check(note["text"].startswith("---\n") and "aliases:" in note["text"], "read_note gives the file with its frontmatter")
    check(note["links_out"] and note["links_in"], "read_note gives links out and in", (len(note["links_out"]), len(note["links_in"])))
    check(all(l["title"] for l in note["links_out"]), "links are named by title")
    r = await call(client, "read_note", {"note": "Qdrant-Entscheidung"})
    check(r.structured_content["path"] == note["path"], "read_note by alias")
    r = await call(client, "read_note", {"note": note["path"]})
    check(r.structured_content["note_id"] == note["note_id"], "read_note by path")
    r = await call(client, "read_note", {"note": note["note_id"]})
    check(r.structured_content["path"] == note["path"], "read_note by id")
    heading = note["headings"][1]
    r = await call(client, "read_note", {"note": note["path"], "section": heading})
    sec = r.structured_content
    check(sec["section"] == heading and heading in sec["text"] and len(sec["text"]) < len(note["text"]), "read_note gives one section", sec["text"][:200])
    msg = await tool_error(client, "read_note", {"note": note["path"], "section": "Gibt es nicht"}, "bad_request")
    check(heading in msg, "… and lists the headings there are", msg)

    # note_context: the neighbourhood to N hops, by kind.
    r = await call(client, "note_context", {"note": "Qdrant als Vektordatenbank", "hops": 2})
    g = r.structured_content
    check(len(g["nodes"]) > 2 and g["edges"], "note_context gives notes and edges", len(g["nodes"]))
    check(max(n["hops"] for n in g["nodes"]) == 2, "… up to two hops")
    carried = [e for e in g["edges"] if e["sentence"] and e["provenance"] == "explicit"]
    check(carried and "[[" in carried[0]["sentence"], "… each link with the sentence that carries it", g["edges"][:2])
    check(g["chains"]["causes"] or g["chains"]["effects"], "… and the causal chains through the note", g["chains"])
    r = await call(client, "note_context", {"note": "Qdrant als Vektordatenbank", "depth": 3, "max_notes": 4})
    g = r.structured_content
    check(len(g["nodes"]) == 4 and g["truncated"], "max_notes bounds the answer", len(g["nodes"]))
    r = await call(client, "note_context", {"note": "Qdrant als Vektordatenbank", "kinds": ["caused_by"]})
    kinds = {e["kind"] for e in r.structured_content["edges"]}
    check(kinds and kinds <= {"caused_by", "resulted_in"}, "note_context follows only the kinds asked for", kinds)
    await tool_error(client, "note_context", {"note": "Qdrant als Vektordatenbank", "kinds": ["gibt_es_nicht"]}, "bad_request")

    # recent_changes: the copied vault is new.
    r = await call(client, "recent_changes", {"since": "1h", "limit": 5})
    rc = r.structured_content
    check(rc["total"] >= 40 and len(rc["notes"]) == 5, "recent_changes lists the new files", (rc["total"], len(rc["notes"])))
    check(all(n["indexed"] for n in rc["notes"] if n["change"] != "deleted"), "… all indexed (a repeated run lists its deleted notes too)", rc["notes"])
    await tool_error(client, "recent_changes", {"since": "gestern"}, "bad_request")

    # lint: the vault and one note.
    r = await call(client, "lint", {})
    lint = r.structured_content
    check(lint["notes"] > 40 and lint["findings"], "lint checks the vault", lint["notes"])
    one = lint["findings"][0]["path"]
    r = await call(client, "lint", {"note": one})
    check({f["path"] for f in r.structured_content["findings"]} == {one}, "lint checks one note")
    r = await call(client, "lint", {"severity": "error"})
    check(all(f["severity"] == "error" for f in r.structured_content["findings"]), "lint filters by severity")

    # status.
    r = await call(client, "status", {})
    st = r.structured_content
    check(st["notes"] >= 40 and st["model"] == "use-m3" and "running" in st["sync"], "status", st)

    # tags: every tag with its count, most used first; a prefix narrows them.
    r = await call(client, "tags", {})
    tags = r.structured_content["tags"]
    counts = [t["notes"] for t in tags]
    check(counts == sorted(counts, reverse=True) and counts[0] > 5, "tags, most used first", tags[:3])
    check(f"#{tags[0]['tag']}" in text_of(r), "… named in the text", text_of(r)[:200])
    r = await call(client, "tags", {"prefix": "MIND"})
    check([t["tag"] for t in r.structured_content["tags"]] == ["mindnet"], "a prefix, case-insensitive", r.structured_content)
    await tool_error(client, "tags", {"sort": "name"}, "bad_request")

    # write_note: indexed before it answers, never outside the vault, no
    # overwrite unless asked.
    word = "Zitronenfalterflug"
    r = await call(client, "write_note", {"title": "MCP Notiz", "text": f"Ein {word} im Garten.", "type": "experience", "folder": "inbox"})
    check(not r.is_error and r.structured_content["created"], "write_note creates a note", text_of(r))
    path = r.structured_content["path"]
    check(path == "inbox/mcp-notiz.md", "… in the folder, with a slug name", path)
    r = await call(client, "search", {"query": word, "k": 1})
    check(r.structured_content["hits"][0]["path"] == path, "the new note is found at once", r.structured_content["hits"][:1])
    await tool_error(client, "write_note", {"title": "MCP Notiz", "text": "anders", "folder": "inbox"}, "conflict")
    r = await call(client, "read_note", {"note": path})
    check(word in r.structured_content["text"], "… the refused write left the note as it was")
    r = await call(client, "write_note", {"title": "MCP Notiz", "text": "Jetzt anders.", "folder": "inbox", "overwrite": True})
    check(not r.is_error and not r.structured_content["created"], "overwrite: true replaces it", text_of(r))
    # `Ausgang` is a symlink the test put in the vault, to a folder outside.
    for folder in ["../draussen", "/tmp", "inbox/../../x", ".obsidian", "a\\b", "%2e%2e", "Ausgang"]:
        await tool_error(client, "write_note", {"title": "Ausbruch", "text": "x", "folder": folder}, "unprocessable")
    r = await call(client, "write_note", {"title": "../../etc/passwd", "text": "x"})
    check(r.structured_content["path"] == "etc-passwd.md", "a title is only a file name", r.structured_content["path"])

    # edit_note: each operation changes the file as it is now and nothing
    # else; a stale version is refused with the current one.
    r = await call(client, "read_note", {"note": path})
    v0 = r.structured_content["version"]
    r = await call(client, "edit_note", {"note": path, "operation": "append", "content": "## Abschnitt\n\nalt mit [[Nirgendwohin]]", "version": v0})
    check(not r.is_error and r.structured_content["changed"], "edit_note appends", text_of(r))
    v1 = r.structured_content["version"]
    check(v1 != v0, "… and answers the new version", v1)
    missing = [f for f in r.structured_content["findings"] if f["rule"] == "link/missing-target"]
    check(missing and "Nirgendwohin" in missing[0]["message"], "… with the linter's findings for the note", r.structured_content["findings"])
    conflict = await tool_error(client, "edit_note", {"note": path, "operation": "append", "content": "spät", "version": v0}, "conflict")
    check(v1 in conflict, "a stale version is refused and the current one named", conflict)
    await call(client, "edit_note", {"note": path, "operation": "prepend", "content": "Vorweg."})
    await call(client, "edit_note", {"note": path, "operation": "set_frontmatter", "fields": {"status": "draft", "tags": ["mcp", "test"], "type": None}})
    r = await call(client, "edit_note", {"note": path, "operation": "replace_section", "section": "Abschnitt", "content": "Ein Kolibriflug ist neu."})
    check(not r.is_error, "replace_section", text_of(r))
    await tool_error(client, "edit_note", {"note": path, "operation": "find_replace", "find": "nicht da", "content": "x"}, "unprocessable")
    r = await call(client, "edit_note", {"note": path, "operation": "find_replace", "find": "Jetzt anders.", "content": "Jetzt neu."})
    check(r.structured_content["replacements"] == 1, "find_replace, once", text_of(r))
    r = await call(client, "read_note", {"note": path})
    want = '---\ntitle: "MCP Notiz"\nstatus: draft\ntags: [mcp, test]\n---\nVorweg.\n\nJetzt neu.\n## Abschnitt\n\nEin Kolibriflug ist neu.\n'
    check(r.structured_content["text"] == want, "the file holds every edit and nothing else", r.structured_content["text"])
    r = await call(client, "search", {"query": "Kolibriflug", "k": 1})
    check(r.structured_content["hits"][0]["path"] == path, "an edit is found at once", r.structured_content["hits"][:1])
    await tool_error(client, "edit_note", {"note": "../etc/passwd", "operation": "append", "content": "x"}, "not_found")

    # move_note: every link form in the linking note follows the note.
    links = "[[mcp-notiz]] [[mcp-notiz|Notiz]] [[inbox/mcp-notiz#Abschnitt]] ![[mcp-notiz]] [md](mcp-notiz.md) `[[mcp-notiz]]`"
    r = await call(client, "write_note", {"title": "MCP Ziel", "text": links, "folder": "inbox", "overwrite": True})
    check(not r.is_error, "a note that links it in every form", text_of(r))
    for to in ["../draussen", "/tmp/x", ".obsidian/x", "Ausgang/x", "a#b"]:
        await tool_error(client, "move_note", {"note": path, "to": to}, "unprocessable")
    r = await call(client, "move_note", {"note": path, "to": "archiv/MCP Notiz verschoben"})
    check(not r.is_error, "move_note moves", text_of(r))
    moved = r.structured_content
    check(moved["path"] == "archiv/MCP Notiz verschoben.md", "… to the new path", moved)
    check({"path": "inbox/mcp-ziel.md", "links": 5} in moved["relinked"], "… and names the note whose links changed", moved["relinked"])
    r = await call(client, "read_note", {"note": "inbox/mcp-ziel.md"})
    want = "[[MCP Notiz verschoben]] [[MCP Notiz verschoben|Notiz]] [[archiv/MCP Notiz verschoben#Abschnitt]] ![[MCP Notiz verschoben]] [md](MCP%20Notiz%20verschoben.md) `[[mcp-notiz]]`"
    check(want in r.structured_content["text"], "every link form rewritten, code left alone", r.structured_content["text"])
    check(any(l["path"] == moved["path"] for l in r.structured_content["links_out"]), "… and resolved in the index", r.structured_content["links_out"])
    await tool_error(client, "read_note", {"note": path}, "not_found")
    r = await call(client, "delete_note", {"note": moved["path"]})
    check([n["path"] for n in r.structured_content["linked_from"]] == ["inbox/mcp-ziel.md"], "deleting it names the note that linked it", r.structured_content)
    r = await call(client, "recent_changes", {"since": "1h", "limit": 50})
    seen = {(n["path"], n["change"], n["door"]) for n in r.structured_content["notes"]}
    check(("inbox/mcp-ziel.md", "edited", "mcp") in seen, "recent_changes: a relinked note, edited over MCP", seen)
    check((moved["path"], "deleted", "mcp") in seen, "… the deleted note, from the change log", seen)

    # Bad arguments and unknown notes are tool errors the model can read.
    msg = await tool_error(client, "search", {"query": 3}, "bad_request")
    check("arguments of `search`" in msg, "a wrong type names the tool and field", msg)
    msg = await tool_error(client, "search", {"query": "x", "sort": "date"}, "bad_request")
    check("unknown field `sort`" in msg, "an unknown field is named", msg)
    await tool_error(client, "search", {"query": "x", "k": 0}, "bad_request")
    await tool_error(client, "search", {}, "bad_request")
    msg = await tool_error(client, "read_note", {"note": "Gibt es nicht"}, "not_found")
    check("Gibt es nicht" in msg, "an unknown note is named", msg)
    try:
        await call(client, "delete_everything", {})
        raise AssertionError("an unknown tool must be a protocol error")
    except MCPError as e:
        check("unknown tool" in str(e), "an unknown tool is a protocol error", e)

    # Resources: every note as mindnet://note/{path}.
    templates = (await client.list_resource_templates()).resource_templates
    check([t.uri_template for t in templates] == ["mindnet://note/{path}"], "the note template", templates)
    resources = (await client.list_resources()).resources
    uris = {str(r.uri) for r in resources}
    want = "mindnet://note/Entscheidungen/Qdrant%20als%20Vektordatenbank.md"
    check(want in uris, "list_resources holds the notes", sorted(uris)[:3])
    contents = (await client.read_resource(want)).contents
    check(contents[0].text == note["text"] and contents[0].mime_type == "text/markdown", "read_resource gives the Markdown")
    try:
        await client.read_resource("mindnet://note/gibt-es-nicht.md")
        raise AssertionError("an unknown note must be an error")
    except MCPError as e:
        check("gibt-es-nicht" in str(e), "an unknown resource is a protocol error", e)

    # Prompts: the three tasks, one with the note embedded as a resource.
    prompts = (await client.list_prompts()).prompts
    check([p.name for p in prompts] == ["why", "tidy_note", "capture"], "the prompts are listed", prompts)
    check(all(p.arguments and p.arguments[0].required for p in prompts), "… each with its required argument")
    got = await client.get_prompt("tidy_note", {"note": "Qdrant als Vektordatenbank"})
    embedded = got.messages[0].content
    check(getattr(embedded, "type", "") == "resource" and str(embedded.resource.uri) == want, "tidy_note embeds the note as a resource", embedded)
    check(embedded.resource.text == note["text"], "… as read_note reads it")
    check("edit_note" in got.messages[1].content.text and note["version"] in got.messages[1].content.text, "… and names the tools and the version", got.messages[1].content.text[:200])
    got = await client.get_prompt("why", {"question": "Warum Qdrant?"})
    check("Warum Qdrant?" in got.messages[0].content.text and "`ask`" in got.messages[0].content.text, "why fills in the question", got.messages[0].content.text[:120])
    for name, args in [("gibt_es_nicht", {}), ("why", {}), ("tidy_note", {"note": "Gibt es nicht"})]:
        try:
            await client.get_prompt(name, args)
            raise AssertionError(f"prompt {name} {args} must be an error")
        except MCPError as e:
            check(True, f"prompt {name} {args} is a protocol error: {e}")

    # delete_note: the note written above goes into the vault's trash and
    # out of the index (a note of the demo vault stays: the run is repeated).
    r = await call(client, "delete_note", {"note": "etc-passwd.md"})
    check(not r.is_error, "delete_note deletes", text_of(r))
    gone = r.structured_content
    check(gone["trashed"].startswith(".trash/etc-passwd"), "the note is in the trash", gone)
    check(gone["linked_from"] == [], "no note linked it", gone)
    await tool_error(client, "read_note", {"note": "etc-passwd.md"}, "not_found")
    await tool_error(client, "delete_note", {"note": "etc-passwd.md"}, "not_found")
    print("ok")


async def main():
    mode = os.environ.get("MCP_MODE", "auto")
    kind = sys.argv[1]
    if kind == "stdio":
        server = StdioServerParameters(
            command=sys.argv[2],
            args=["mcp", "--vault", sys.argv[3]],
            env={**os.environ, "RUST_LOG": "warn,qdrant_edge=error,rmcp=error"},
        )
        async with Client(server, mode=mode, read_timeout_seconds=120) as client:
            await run(client)
    else:
        url = sys.argv[2]
        headers = {"Authorization": f"Bearer {sys.argv[3]}"} if len(sys.argv) > 3 else {}
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
            async with Client(streamable_http_client(url, http_client=http), mode=mode, read_timeout_seconds=120) as client:
                await run(client)


asyncio.run(main())

// The plugin's pane and status bar, rendered into jsdom with the host
// module standing in for `obsidian`, against a real `mindnet serve` on the
// bundled example vault; and the notice when no server answers.
//
//     node test/pane.test.mjs http://127.0.0.1:PORT VAULT

import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPlugin } from "./load.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const [server, vault] = process.argv.slice(2);
if (!server || !vault) {
	throw new Error("give the server's address and its vault");
}

const { dom, host, plugin, out } = await loadPlugin();

let failures = 0;

/** Polls `probe` until it answers (not null), for up to five seconds. */
async function until(probe) {
	for (let i = 0; i < 50; i += 1) {
		const v = probe();
		if (v !== null) {
			return v;
		}
		await new Promise((r) => setTimeout(r, 100));
	}
	return null;
}
function check(cond, what, detail = "") {
	if (cond) {
		console.log(`✓ ${what}`);
	} else {
		failures += 1;
		console.log(`✗ ${what} ${detail}`);
	}
}

const NOTE = "Entscheidungen/Qdrant als Vektordatenbank.md";
const openedLinks = [];
function app(active) {
	return {
		workspace: {
			openLinkText: async (target) => openedLinks.push(target),
			getActiveFile: () => new host.TFile(active),
			on: () => ({}),
			onLayoutReady: (cb) => cb(),
			getLeavesOfType: () => [],
		},
		vault: {
			on: () => ({}),
			getAbstractFileByPath: (p) => new host.TFile(p),
		},
	};
}

// The pane of a note of the example vault.
const settings = { server, token: "", maxNotes: 20, related: 5 };
const client = new plugin.MindnetClient(() => settings);
let unreachable = 0;
const view = new plugin.NoteView(new host.WorkspaceLeaf(app(NOTE)), client, () => 5, () => (unreachable += 1));
await view.onOpen();
const pane = view.contentEl;
const headings = [...pane.querySelectorAll("h5")].map((h) => h.textContent);
check(pane.querySelector("h4")?.textContent === "Qdrant als Vektordatenbank", "the pane names the note");
const related = headings.find((h) => h.startsWith("Related"));
check(related && !related.includes("(0)"), "related notes are listed", related);
const reasons = pane.querySelectorAll(".mindnet-reasons li");
check(reasons.length > 0, "… each with its reasons", reasons.length);
check(headings.some((h) => /^Links out \([1-9]/.test(h)), "the links out are listed", headings.join(" | "));
const sentences = [...pane.querySelectorAll(".mindnet-sentence")].map((s) => s.textContent);
check(sentences.some((s) => s.includes("[[")), "… with the sentence that carries each", sentences[0]);
check(headings.includes("Causes") || headings.includes("Effects"), "the causal chain is shown", headings.join(" | "));
check(headings.some((h) => h.startsWith("Linter (")), "the linter's findings are shown", headings.join(" | "));
const links = [...pane.querySelectorAll("a.mindnet-note")];
check(links.length > 0 && links.every((a) => a.getAttribute("href") === "#"), "notes open on click, not by URL");
check(!pane.innerHTML.includes("<script"), "nothing of the server's text became markup");
check(unreachable === 0, "no notice while the server answers");
writeFileSync(join(dirname(out), "pane.html"), dom.serialize());

// A finding's fix: previewed in the pane, applied through the server.
const noteFile = join(vault, NOTE);
const before = readFileSync(noteFile, "utf8");
const fixRows = [...pane.querySelectorAll(".mindnet-fix")];
const aliasFix = fixRows.find((r) => r.textContent.includes("`ausgelöst_durch` → `caused_by`"));
check(aliasFix !== undefined, "a finding shows its fix", fixRows.map((r) => r.textContent).join(" | "));
check(aliasFix?.closest("li")?.textContent.includes("ausgelöst_durch"), "… under the finding it fixes", aliasFix?.closest("li")?.textContent);
const fixesBefore = fixRows.length;
host.notices.length = 0;
aliasFix?.querySelector("button")?.dispatchEvent(new window.MouseEvent("click", { bubbles: true }));
const after = await until(() => {
	const now = readFileSync(noteFile, "utf8");
	return now !== before ? now : null;
});
check(after?.includes("> [!edge] caused_by: [[Eigenes Wissenssystem bauen]]"), "apply writes the fix into the note", after?.slice(-160));
check(after?.includes("führte_zu: [[Hybride Suche läuft lokal]]"), "… and only that fix", after?.slice(-160));
check(
	before.replace("ausgelöst_durch:", "caused_by:") === after,
	"… nothing else of the file changed",
);
await until(() => (pane.querySelectorAll(".mindnet-fix").length === fixesBefore - 1 ? true : null));
check(pane.querySelectorAll(".mindnet-fix").length === fixesBefore - 1, "the pane shows the note again, one fix fewer", pane.querySelectorAll(".mindnet-fix").length);
check(host.notices.some((n) => n.startsWith("Mindnet: fixed line")), "… and says it fixed it", JSON.stringify(host.notices));
const recent = await client.call("GET", "/recent_changes?since=1h");
const changed = recent.notes.find((n) => n.path === NOTE);
check(changed?.door === "http" && changed?.indexed === true, "the fix went through the server and the index holds it", JSON.stringify(changed));
const stale = await client.applyFix(NOTE, { line: 26, column: 11, what: "", version: "0000000000000000" }).catch((e) => e);
check(stale instanceof plugin.ServerError && stale.code === "conflict", "a fix previewed on an older version is refused", String(stale));

// The status bar.
const Plugin = plugin.default;
const p = new Plugin(app(NOTE), { id: "mindnet", version: "0.1.0" });
p.data = { server };
await p.onload();
await new Promise((r) => setTimeout(r, 500));
const status = p.statusItems[0]?.textContent ?? "";
// The watcher may be syncing the fix applied above: the item says so.
check(/^Mindnet: (syncing, )?\d+ notes$/.test(status), "the status bar counts the notes", status);
check(p.commands.length >= 2, "the commands are registered", p.commands.map((c) => c.id).join(", "));

// The commands: a search as you type, and "why?" about the current note.
p.commands.find((c) => c.id === "search").callback();
const search = host.opened.at(-1);
const hits = await search.getSuggestions("Qdrant Vektordatenbank");
check(hits.length > 0 && hits.some((h) => h.title.includes("Qdrant")), "the search modal finds notes as one types", hits.map((h) => h.title).join(" | "));
const row = document.createElement("div");
search.renderSuggestion(hits[0], row);
check(row.textContent.includes(hits[0].title), "… each shown with its score and reasons", row.textContent);
p.commands.find((c) => c.id === "ask-why").callback();
await new Promise((r) => setTimeout(r, 1500));
const answer = host.opened.at(-1);
check(answer !== search && answer.contentEl.querySelector("h4")?.textContent === "Warum Qdrant als Vektordatenbank?", "ask why opens the answer for the current note", answer.contentEl.textContent.slice(0, 80));
check(answer.contentEl.querySelectorAll("ol li").length > 0, "… with its chain, step by step", answer.contentEl.textContent.slice(0, 200));

p.commands.find((c) => c.id === "lint-vault").callback();
await new Promise((r) => setTimeout(r, 1500));
const lint = host.opened.at(-1);
check(/^Linter: \d+ notes$/.test(lint.contentEl.querySelector("h4")?.textContent ?? ""), "lint the vault opens its counts", lint.contentEl.textContent.slice(0, 120));

// The chat: an answer with citations that open the cited note at its heading.
const chat = new plugin.ChatView(new host.WorkspaceLeaf(app(NOTE)), client, () => (unreachable += 1));
await chat.onOpen();
await chat.ask("Warum habe ich mich für Qdrant entschieden?");
const answerText = [...chat.contentEl.querySelectorAll(".mindnet-chat-answer p")].map((p) => p.textContent).join(" ");
check(answerText.length > 20, "the chat answers", answerText.slice(0, 120));
const cited = [...chat.contentEl.querySelectorAll(".mindnet-chat-answer a.mindnet-note")];
check(cited.length > 0 && cited[0].textContent.startsWith("[1]"), "… with numbered citations", cited.map((a) => a.textContent).join(" | "));
cited[0].dispatchEvent(new window.MouseEvent("click", { bubbles: true, cancelable: true }));
check(openedLinks.length === 1 && openedLinks[0].includes(".md"), "a citation opens its note (at its heading)", JSON.stringify(openedLinks));
await chat.ask("Und was folgte daraus?");
check(chat.contentEl.querySelectorAll(".mindnet-chat-answer").length === 2, "the conversation goes on in one session");
const pieces = [];
const streamed = await client.chatStreamed("Warum laufe ich jeden Morgen?", null, (t) => pieces.push(t));
check(pieces.length > 1 && pieces.join("") === streamed.answer, "the answer streams in pieces that make the whole", `${pieces.length} pieces`);
check((streamed.causal?.paths ?? []).length > 0, "… and a causal question brings its chain", JSON.stringify(streamed.causal?.paths?.[0]?.steps?.[0]));
await chat.ask("Warum laufe ich jeden Morgen?");
check(chat.contentEl.querySelectorAll(".mindnet-chat-answer .mindnet-chain li").length > 0, "the chat shows the why chain, step by step", chat.contentEl.textContent.slice(-200));
const preflight = async (origin) =>
	(await fetch(`${server}/chat`, {
		method: "OPTIONS",
		headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
	})).headers.get("access-control-allow-origin");
check((await preflight("app://obsidian.md")) === "app://obsidian.md", "the server lets Obsidian's app stream (CORS)");
check((await preflight("https://evil.example")) === null, "… and no other origin");

// No server: one clear notice that says how to start it, no repeats.
host.notices.length = 0;
const down = new Plugin(app(NOTE), { id: "mindnet", version: "0.1.0" });
down.data = { server: "http://127.0.0.1:9" };
await down.onload();
await new Promise((r) => setTimeout(r, 500));
check(down.statusItems[0]?.textContent === "Mindnet: not connected", "the status bar says it is not connected");
await down.updateStatus();
await down.updateStatus();
const told = () => host.notices.filter((n) => n.includes("mindnet serve")).length;
check(told() === 1, "one notice names the command that starts the server, however often the status is polled", JSON.stringify(host.notices));
down.commands.find((c) => c.id === "show-status").callback();
await new Promise((r) => setTimeout(r, 300));
check(told() === 2, "… and again when the user asks for the status", JSON.stringify(host.notices));

// Screenshots of the pane and the chat, light and dark (on request).
if (process.env.MINDNET_PLUGIN_SHOTS) {
	const { shoot } = await import(join(here, "screenshots.mjs"));
	await view.refresh(true);
	await shoot(process.env.MINDNET_PLUGIN_SHOTS, readFileSync(noteFile, "utf8"), [
		{ name: "pane", title: "Mindnet", html: view.contentEl.outerHTML },
		{ name: "chat", title: "Ask mindnet", html: chat.contentEl.outerHTML },
	]);
	console.log(`screenshots in ${process.env.MINDNET_PLUGIN_SHOTS}`);
}

// The committed main.js itself (what `mindnet obsidian install` writes),
// loaded as Obsidian loads it: a CommonJS module that requires `obsidian`.
const bundled = { exports: {} };
const requireHost = (name) => (name === "obsidian" ? host : createRequire(import.meta.url)(name));
new Function("module", "exports", "require", readFileSync(join(here, "..", "main.js"), "utf8"))(
	bundled,
	bundled.exports,
	requireHost,
);
const manifest = JSON.parse(readFileSync(join(here, "..", "manifest.json"), "utf8"));
check(
	manifest.id === "mindnet" && manifest.name !== "" && /^\d+\.\d+\.\d+$/.test(manifest.version) && manifest.author !== "",
	"the manifest has its id, name, version (x.y.z) and author",
	JSON.stringify(manifest),
);
check(/^\d+\.\d+\.\d+$/.test(manifest.minAppVersion) && typeof manifest.isDesktopOnly === "boolean", "… its minAppVersion and isDesktopOnly");
const about = manifest.description;
check(about.length < 250 && about.endsWith(".") && !/obsidian/i.test(about), "… and a description under 250 characters that ends with a period and does not name the app", about);
const Shipped = bundled.exports.default;
const shipped = new Shipped(app(NOTE), manifest);
shipped.data = { server };
let thrown = null;
await shipped.onload().catch((e) => (thrown = e));
check(thrown === null, "main.js loads and its onload() does not throw", String(thrown));
check([...shipped.views.keys()].sort().join(",") === "mindnet-chat,mindnet-note", "… registers its two views", [...shipped.views.keys()].join(","));
const ids = shipped.commands.map((c) => c.id).sort().join(",");
check(ids === "ask-why,lint-note,lint-vault,open-chat,open-pane,search,show-status", "… its seven commands", ids);
check(shipped.settingTabs.length === 1, "… and its settings tab");
shipped.settingTabs[0]?.display();
const settingNames = [...(shipped.settingTabs[0]?.containerEl.children ?? [])].map((e) => e.textContent).join(" | ");
check(settingNames === "Server address | Token | Related notes | Notes around a note", "… which shows the four settings", settingNames);

if (failures > 0) {
	process.exit(1);
}
console.log("ok");
process.exit(0);

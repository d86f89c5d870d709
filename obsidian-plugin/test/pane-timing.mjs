// How long the pane takes to fill for a note, as the user waits for it:
// from the note becoming active to the four answers (related notes,
// neighbourhood with chains, findings, fix previews) rendered, against a
// running `mindnet serve` (warm: one note is shown first and not counted).
//
//     node test/pane-timing.mjs http://127.0.0.1:PORT VAULT [NOTES]
//
// NOTES notes (default 50) are taken evenly from the vault's files in path
// order, so two runs time the same notes. Prints p50, p95 and max in ms.

import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { loadPlugin } from "./load.mjs";

const [server, vault, count = "50"] = process.argv.slice(2);
if (!server || !vault) {
	throw new Error("usage: node test/pane-timing.mjs SERVER VAULT [NOTES]");
}

const { host, plugin } = await loadPlugin();

/** The vault's notes, vault-relative, in path order (hidden folders left out). */
function notes(dir) {
	const found = [];
	for (const e of readdirSync(dir, { withFileTypes: true })) {
		if (e.name.startsWith(".")) {
			continue;
		}
		const p = join(dir, e.name);
		if (e.isDirectory()) {
			found.push(...notes(p));
		} else if (e.name.endsWith(".md")) {
			found.push(relative(vault, p));
		}
	}
	return found.sort();
}

const all = notes(vault);
const n = Math.min(Number(count), all.length);
const picked = Array.from({ length: n }, (_, i) => all[Math.floor((i * all.length) / n)]);
let active = picked[0];
const app = {
	workspace: { getActiveFile: () => new host.TFile(active), on: () => ({}) },
	vault: { on: () => ({}), getAbstractFileByPath: (p) => new host.TFile(p) },
};
const settings = { server, token: "", maxNotes: 20, related: 8 };
const view = new plugin.NoteView(new host.WorkspaceLeaf(app), new plugin.MindnetClient(() => settings), () => 8, () => {
	throw new Error(`no server at ${server}`);
});
await view.onOpen();
const times = [];
const unindexed = [];
for (const note of picked) {
	active = note;
	const start = performance.now();
	await view.refresh(false);
	const ms = performance.now() - start;
	// A note the index leaves out (private, a template) shows why instead.
	if (view.contentEl.querySelector("h5")) {
		times.push(ms);
	} else {
		unindexed.push(note);
	}
}
if (times.length === 0) {
	throw new Error(`no pane filled: ${view.contentEl.textContent}`);
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
console.log(
	`${all.length} notes in the vault, ${times.length} panes (${unindexed.length} notes not indexed): p50 ${at(0.5).toFixed(0)} ms, p95 ${at(0.95).toFixed(0)} ms, max ${times.at(-1).toFixed(0)} ms`,
);

// What the pane, the chat and the modals share: a chain of causes or
// effects as nested lists, the paths of a causal answer step by step, and
// a note opened from a click.

import { App, TFile } from "obsidian";
import type { CausalPath, ChainNode } from "./api";

/** Each node as a list item (its kind, then `title`), its children nested. */
export function chainTree(
	list: HTMLElement,
	nodes: ChainNode[],
	title: (item: HTMLElement, node: ChainNode) => void,
): void {
	for (const n of nodes) {
		const item = list.createEl("li");
		item.createSpan({ cls: "mindnet-kind", text: `${n.kind} ` });
		title(item, n);
		if (n.children.length > 0 && !n.repeated) {
			chainTree(item.createEl(list.tagName === "OL" ? "ol" : "ul", { cls: "mindnet-list" }), n.children, title);
		}
	}
}

export function openNote(app: App, path: string): void {
	const file = app.vault.getAbstractFileByPath(path);
	if (file instanceof TFile) {
		void app.workspace.getLeaf(false).openFile(file);
	}
}

/** The first `max` paths of a causal answer, each step with its evidence. */
export function causalPaths(parent: HTMLElement, paths: CausalPath[], max: number): void {
	for (const path of paths.slice(0, max)) {
		const list = parent.createEl("ol", { cls: "mindnet-list mindnet-chain" });
		const titles = new Map(path.notes.map((n) => [n.note_id, n.title]));
		for (const step of path.steps) {
			const item = list.createEl("li");
			item.createSpan({ text: `${titles.get(step.cause) ?? step.cause} ` });
			item.createSpan({ cls: "mindnet-kind", text: `→ ${step.kind} → ` });
			item.createSpan({ text: titles.get(step.effect) ?? step.effect });
			if (step.evidence !== "") {
				item.createDiv({ cls: "mindnet-sentence", text: step.evidence });
			}
		}
	}
}

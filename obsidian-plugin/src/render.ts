// What the pane and the modals both draw: a chain of causes or effects as
// nested lists, and a note opened from a click.

import { App, TFile } from "obsidian";
import type { ChainNode } from "./api";

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

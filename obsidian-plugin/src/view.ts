// The side pane: for the active note, its typed links in and out (each with
// the sentence that carries it), its causes and effects, and what the
// linter finds in it. Everything comes from the server; the pane keeps no
// reference to the plugin beyond the client and the way to open a note.

import { ItemView, Notice, WorkspaceLeaf, debounce } from "obsidian";
import type { Finding, FindingFix, Graph, GraphEdge, Hit, MindnetClient } from "./api";
import { ServerUnreachable } from "./api";
import { chainTree, openNote } from "./render";

export const VIEW_TYPE = "mindnet-note";

/** A related note's first reasons show; the rest fold away. */
const REASONS_SHOWN = 3;

export class NoteView extends ItemView {
	private shown: string | null = null;

	constructor(
		leaf: WorkspaceLeaf,
		private readonly client: MindnetClient,
		private readonly relatedCount: () => number,
		private readonly unreachable: () => void,
	) {
		super(leaf);
	}

	getViewType(): string {
		return VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Mindnet";
	}

	getIcon(): string {
		return "network";
	}

	async onOpen(): Promise<void> {
		const refresh = debounce(() => void this.refresh(false), 800, true);
		this.registerEvent(this.app.workspace.on("active-leaf-change", () => void this.refresh(false)));
		this.registerEvent(
			this.app.vault.on("modify", (file) => {
				if (file.path === this.shown) {
					refresh();
				}
			}),
		);
		await this.refresh(true);
	}

	/** Shows the active note; `force` shows it again even if it is shown. */
	async refresh(force: boolean): Promise<void> {
		const file = this.app.workspace.getActiveFile();
		if (file === null || file.extension !== "md") {
			return;
		}
		if (!force && file.path === this.shown) {
			return;
		}
		this.shown = file.path;
		const root = this.contentEl;
		root.empty();
		root.addClass("mindnet-pane");
		root.createEl("h4", { text: file.basename });
		try {
			const [related, graph, report] = await Promise.all([
				this.client.related(file.path, this.relatedCount()),
				this.client.context(file.path, 1),
				this.client.lint(file.path),
			]);
			if (this.shown !== file.path) {
				return;
			}
			this.related(root, related.hits);
			this.links(root, graph);
			this.chains(root, graph);
			this.findings(root, report.findings);
		} catch (e) {
			root.createEl("p", { cls: "mindnet-muted", text: message(e) });
			if (e instanceof ServerUnreachable) {
				this.unreachable();
			}
		}
	}

	private related(root: HTMLElement, hits: Hit[]): void {
		root.createEl("h5", { text: `Related (${hits.length})` });
		const list = root.createEl("ul", { cls: "mindnet-list" });
		for (const h of hits) {
			const item = list.createEl("li");
			this.noteLink(item, h.title, h.path);
			item.createSpan({ cls: "mindnet-kind", text: ` ${h.score.toFixed(2)} · ${h.type}` });
			const reasons = item.createEl("ul", { cls: "mindnet-reasons" });
			for (const r of h.reasons.slice(0, REASONS_SHOWN)) {
				reasons.createEl("li", { text: r });
			}
			if (h.reasons.length > REASONS_SHOWN) {
				const more = item.createEl("details", { cls: "mindnet-reasons" });
				more.createEl("summary", { text: `${h.reasons.length - REASONS_SHOWN} more reasons` });
				const rest = more.createEl("ul", { cls: "mindnet-reasons" });
				for (const r of h.reasons.slice(REASONS_SHOWN)) {
					rest.createEl("li", { text: r });
				}
			}
		}
	}

	/** The notes linked out and in, each once, with every kind of link and the sentences that carry them. */
	private links(root: HTMLElement, graph: Graph): void {
		const titles = new Map(graph.nodes.map((n) => [n.note_id, n]));
		const outgoing = graph.edges.filter((e) => e.from === graph.start && e.to !== graph.start);
		const incoming = graph.edges.filter((e) => e.to === graph.start && e.from !== graph.start);
		for (const [heading, edges, other] of [
			["Links out", outgoing, (e: GraphEdge) => e.to],
			["Links in", incoming, (e: GraphEdge) => e.from],
		] as const) {
			const byNote = groupBy(edges, other);
			root.createEl("h5", { text: `${heading} (${byNote.size})` });
			const list = root.createEl("ul", { cls: "mindnet-list" });
			for (const [id, group] of byNote) {
				const node = titles.get(id);
				if (node === undefined) {
					continue;
				}
				const item = list.createEl("li");
				this.noteLink(item, node.title, node.path);
				const kinds = group.map((e) => `${e.kind} · ${e.provenance}`);
				item.createSpan({ cls: "mindnet-kind", text: ` ${[...new Set(kinds)].join(", ")}` });
				const sentences = new Set(group.map((e) => e.sentence).filter((x): x is string => x !== null));
				for (const sentence of sentences) {
					item.createDiv({ cls: "mindnet-sentence", text: sentence });
				}
			}
		}
		if (graph.truncated) {
			root.createEl("p", { cls: "mindnet-muted", text: "More notes around it than the pane shows." });
		}
	}

	private chains(root: HTMLElement, graph: Graph): void {
		const { causes, effects } = graph.chains;
		if (causes.length === 0 && effects.length === 0) {
			return;
		}
		for (const [heading, nodes] of [
			["Causes", causes],
			["Effects", effects],
		] as const) {
			if (nodes.length === 0) {
				continue;
			}
			root.createEl("h5", { text: heading });
			chainTree(root.createEl("ul", { cls: "mindnet-list" }), nodes, (item, n) =>
				this.noteLink(item, n.title, n.path),
			);
		}
	}

	/** Each finding; one the linter can fix safely shows its change and an apply button. */
	private findings(root: HTMLElement, findings: Finding[]): void {
		root.createEl("h5", { text: `Linter (${findings.length})` });
		const list = root.createEl("ul", { cls: "mindnet-list" });
		for (const f of findings) {
			const item = list.createEl("li", { cls: `mindnet-${f.severity}` });
			item.createSpan({ cls: "mindnet-kind", text: `${f.rule}, line ${f.line}: ` });
			item.createSpan({ text: f.message });
			const fix = f.fix;
			if (fix === undefined) {
				continue;
			}
			const row = item.createDiv({ cls: "mindnet-fix" });
			row.createSpan({ text: `Fix: ${fix.what} ` });
			const button = row.createEl("button", { text: "Apply" });
			this.registerDomEvent(button, "click", () => {
				button.disabled = true;
				void this.apply(f.path, fix);
			});
		}
	}

	/** Applies one finding's fix through the server (so the index follows), then shows the note again. */
	private async apply(path: string, fix: FindingFix): Promise<void> {
		try {
			const report = await this.client.applyFix(path, fix);
			const file = report.files.find((f) => f.path === path);
			if (file?.written === true) {
				new Notice(`Mindnet: fixed line ${fix.line}`);
			} else {
				new Notice(`Mindnet: not fixed: ${file?.error ?? "nothing to fix there any more"}`);
			}
		} catch (e) {
			new Notice(`Mindnet: not fixed: ${message(e)}`);
		}
		await this.refresh(true);
	}

	private noteLink(parent: HTMLElement, title: string, path: string): void {
		const a = parent.createEl("a", { cls: "mindnet-note", text: title, href: "#" });
		this.registerDomEvent(a, "click", (evt) => {
			evt.preventDefault();
			openNote(this.app, path);
		});
	}
}

/** The items by key, in the order each key first comes. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
	const groups = new Map<string, T[]>();
	for (const item of items) {
		const k = key(item);
		const group = groups.get(k);
		if (group === undefined) {
			groups.set(k, [item]);
		} else {
			group.push(item);
		}
	}
	return groups;
}

function message(e: unknown): string {
	return e instanceof Error ? e.message : String(e);
}

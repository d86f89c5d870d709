// The search of the vault (a suggester that asks the server as you type)
// and the answer to "why?" about the current note, with its chain.

import { App, Modal, SuggestModal } from "obsidian";
import type { Answer, ChainNode, Finding, Hit, LintReport, MindnetClient } from "./api";
import { causalPaths, chainTree, openNote } from "./render";

/** How long typing must pause before the server is asked. */
const TYPING_PAUSE_MS = 250;

export class SearchModal extends SuggestModal<Hit> {
	private timer: number | null = null;

	constructor(
		app: App,
		private readonly client: MindnetClient,
		private readonly failed: (e: unknown) => void,
	) {
		super(app);
		this.setPlaceholder("Search the vault with mindnet");
	}

	getSuggestions(query: string): Promise<Hit[]> {
		if (this.timer !== null) {
			window.clearTimeout(this.timer);
		}
		if (query.trim().length < 2) {
			return Promise.resolve([]);
		}
		return new Promise((resolve) => {
			this.timer = window.setTimeout(() => {
				this.client
					.search(query, 10)
					.then((a) => resolve(a.hits))
					.catch((e: unknown) => {
						this.failed(e);
						resolve([]);
					});
			}, TYPING_PAUSE_MS);
		});
	}

	renderSuggestion(hit: Hit, el: HTMLElement): void {
		el.createDiv({ text: hit.title });
		el.createDiv({ cls: "mindnet-kind", text: `${hit.score.toFixed(2)} · ${hit.reasons.slice(0, 2).join(" · ")}` });
	}

	onChooseSuggestion(hit: Hit): void {
		openNote(this.app, hit.path);
	}
}

export class AnswerModal extends Modal {
	constructor(
		app: App,
		private readonly question: string,
		private readonly answer: Answer,
		/** The note's own causes, as its links record them. */
		private readonly causes: ChainNode[],
	) {
		super(app);
	}

	onOpen(): void {
		const { contentEl } = this;
		contentEl.empty();
		contentEl.addClass("mindnet-pane");
		contentEl.createEl("h4", { text: this.question });
		const paths = this.answer.causal?.paths ?? [];
		if (paths.length === 0 && this.causes.length > 0) {
			contentEl.createEl("p", { cls: "mindnet-muted", text: "Its causes, as the notes link them:" });
			chainTree(contentEl.createEl("ol", { cls: "mindnet-list" }), this.causes, (item, n) =>
				item.createSpan({ text: n.title }),
			);
		} else if (paths.length === 0) {
			contentEl.createEl("p", { cls: "mindnet-muted", text: "No chain of causes found; the notes closest to the question:" });
		}
		causalPaths(contentEl, paths, 3);
		const list = contentEl.createEl("ul", { cls: "mindnet-list" });
		for (const hit of this.answer.hits.slice(0, 5)) {
			const item = list.createEl("li");
			const a = item.createEl("a", { cls: "mindnet-note", text: hit.title, href: "#" });
			a.addEventListener("click", (evt) => {
				evt.preventDefault();
				this.close();
				openNote(this.app, hit.path);
			});
		}
	}

	onClose(): void {
		this.contentEl.empty();
	}
}

/** A vault's errors and warnings are listed at most this many at a time. */
const MAX_LISTED = 200;

/** The vault's lint: the counts, then the errors and warnings, each opening its note. */
export class LintModal extends Modal {
	constructor(
		app: App,
		private readonly report: LintReport,
	) {
		super(app);
	}

	onOpen(): void {
		const { contentEl } = this;
		contentEl.empty();
		contentEl.addClass("mindnet-pane");
		const count = (s: Finding["severity"]) => this.report.findings.filter((f) => f.severity === s).length;
		contentEl.createEl("h4", { text: `Linter: ${this.report.notes} notes` });
		contentEl.createEl("p", {
			text: `${count("error")} errors, ${count("warning")} warnings, ${count("recommendation")} recommendations`,
		});
		const serious = this.report.findings.filter((f) => f.severity !== "recommendation");
		const list = contentEl.createEl("ul", { cls: "mindnet-list" });
		for (const f of serious.slice(0, MAX_LISTED)) {
			const item = list.createEl("li", { cls: `mindnet-${f.severity}` });
			const a = item.createEl("a", { cls: "mindnet-note", text: `${f.path}:${f.line}`, href: "#" });
			a.addEventListener("click", (evt) => {
				evt.preventDefault();
				this.close();
				openNote(this.app, f.path);
			});
			item.createSpan({ cls: "mindnet-kind", text: ` ${f.rule}: ` });
			item.createSpan({ text: f.message });
		}
		if (serious.length > MAX_LISTED) {
			contentEl.createEl("p", { cls: "mindnet-muted", text: `and ${serious.length - MAX_LISTED} more (mindnet lint lists them all)` });
		}
	}

	onClose(): void {
		this.contentEl.empty();
	}
}

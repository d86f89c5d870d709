// Ask mindnet: a conversation with the vault. Each answer shows as it is
// written, then with its citations, which open the cited note at the
// cited heading, and for a causal question the chain it stands on.

import { ItemView, WorkspaceLeaf } from "obsidian";
import type { ChatAnswer, MindnetClient } from "./api";
import { ServerUnreachable } from "./api";
import { causalPaths } from "./render";

export const CHAT_VIEW_TYPE = "mindnet-chat";

export class ChatView extends ItemView {
	private session: string | null = null;
	private log: HTMLElement | null = null;

	constructor(
		leaf: WorkspaceLeaf,
		private readonly client: MindnetClient,
		private readonly unreachable: () => void,
	) {
		super(leaf);
	}

	getViewType(): string {
		return CHAT_VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Ask mindnet";
	}

	getIcon(): string {
		return "message-circle";
	}

	async onOpen(): Promise<void> {
		const root = this.contentEl;
		root.empty();
		root.addClass("mindnet-pane");
		this.log = root.createDiv({ cls: "mindnet-chat-log" });
		const form = root.createEl("form", { cls: "mindnet-chat-form" });
		const input = form.createEl("textarea", { cls: "mindnet-chat-input" });
		input.placeholder = "Ask why, what followed, or what your notes say";
		form.createEl("button", { text: "Ask", type: "submit" });
		this.registerDomEvent(form, "submit", (evt) => {
			evt.preventDefault();
			const message = input.value.trim();
			if (message !== "") {
				input.value = "";
				void this.ask(message);
			}
		});
		await Promise.resolve();
	}

	/** Sends one message; shows the answer as it comes, then whole. */
	async ask(message: string): Promise<void> {
		const log = this.log;
		if (log === null) {
			return;
		}
		log.createDiv({ cls: "mindnet-chat-question", text: message });
		const pending = log.createDiv({ cls: "mindnet-chat-answer mindnet-chat-pending", text: "…" });
		let written = "";
		try {
			const answer = await this.client.chatStreamed(message, this.session, (text) => {
				written += text;
				pending.setText(written);
				log.scrollTop = log.scrollHeight;
			});
			this.session = answer.session;
			pending.remove();
			this.show(log, answer);
		} catch (e) {
			pending.setText(e instanceof Error ? e.message : String(e));
			pending.addClass("mindnet-muted");
			if (e instanceof ServerUnreachable) {
				this.unreachable();
			}
		}
	}

	private show(log: HTMLElement, answer: ChatAnswer): void {
		const block = log.createDiv({ cls: "mindnet-chat-answer" });
		for (const paragraph of answer.answer.split(/\n{2,}/)) {
			block.createEl("p", { text: paragraph });
		}
		const paths = answer.causal?.paths ?? [];
		if (paths.length > 0) {
			block.createDiv({ cls: "mindnet-label", text: "Why, step by step" });
			causalPaths(block, paths, 1);
		}
		if (answer.citations.length > 0) {
			block.createDiv({ cls: "mindnet-label", text: "Sources" });
			const list = block.createEl("ul", { cls: "mindnet-list mindnet-sources" });
			for (const c of [...answer.citations].sort((a, b) => a.n - b.n)) {
				const item = list.createEl("li");
				const heading = c.section.split(" > ").pop() ?? "";
				const target = heading !== "" && heading !== c.title ? `${c.path}#${heading}` : c.path;
				const a = item.createEl("a", { cls: "mindnet-note", text: `[${c.n}] ${c.title}`, href: "#" });
				this.registerDomEvent(a, "click", (evt) => {
					evt.preventDefault();
					void this.app.workspace.openLinkText(target, "", false);
				});
				if (heading !== "" && heading !== c.title) {
					item.createSpan({ cls: "mindnet-kind", text: ` › ${heading}` });
				}
			}
		}
		for (const w of answer.warnings) {
			block.createEl("p", { cls: "mindnet-muted", text: w });
		}
	}
}

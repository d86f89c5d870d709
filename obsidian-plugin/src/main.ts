// mindnet in Obsidian: a side pane for the active note and a status bar
// item, over the HTTP API of a `mindnet serve` on the user's machine.

import { Notice, Plugin, PluginSettingTab, Setting } from "obsidian";
import type { App } from "obsidian";
import { DEFAULT_SETTINGS, MindnetClient, ServerUnreachable } from "./api";
import type { MindnetSettings } from "./api";
import { CHAT_VIEW_TYPE, ChatView } from "./chat";
import { AnswerModal, LintModal, SearchModal } from "./modals";
import { NoteView, VIEW_TYPE } from "./view";

/** How often the status bar asks the server how it is. */
const STATUS_EVERY_MS = 30_000;

export default class MindnetPlugin extends Plugin {
	settings: MindnetSettings = { ...DEFAULT_SETTINGS };
	private client = new MindnetClient(() => this.settings);
	private statusItem: HTMLElement | null = null;
	/** Set once the user was told no server runs, until one answers again. */
	private told = false;

	async onload(): Promise<void> {
		await this.loadSettings();
		this.registerView(VIEW_TYPE, (leaf) =>
			new NoteView(
				leaf,
				this.client,
				() => this.settings.related,
				() => this.noServer(),
			));
		this.registerView(CHAT_VIEW_TYPE, (leaf) => new ChatView(leaf, this.client, () => this.noServer()));
		this.addSettingTab(new MindnetSettingTab(this.app, this));
		this.addCommand({
			id: "open-pane",
			name: "Open the pane for the current note",
			callback: () => void this.openView(VIEW_TYPE),
		});
		this.addCommand({
			id: "open-chat",
			name: "Open the chat",
			callback: () => void this.openView(CHAT_VIEW_TYPE),
		});
		this.addCommand({
			id: "search",
			name: "Search the vault",
			callback: () => new SearchModal(this.app, this.client, (e) => this.report(e)).open(),
		});
		this.addCommand({
			id: "ask-why",
			name: "Ask why about the current note",
			callback: () => void this.askWhy(),
		});
		this.addCommand({
			id: "lint-note",
			name: "Lint the current note",
			callback: () => void this.openView(VIEW_TYPE),
		});
		this.addCommand({
			id: "lint-vault",
			name: "Lint the vault",
			callback: () => void this.lintVault(),
		});
		this.addCommand({
			id: "show-status",
			name: "Show the index status",
			callback: () => void this.showStatus(),
		});
		this.statusItem = this.addStatusBarItem();
		this.registerInterval(window.setInterval(() => void this.updateStatus(), STATUS_EVERY_MS));
		this.app.workspace.onLayoutReady(() => void this.updateStatus());
	}

	async loadSettings(): Promise<void> {
		this.settings = { ...DEFAULT_SETTINGS, ...((await this.loadData()) as Partial<MindnetSettings> | null) };
	}

	async saveSettings(): Promise<void> {
		await this.saveData(this.settings);
	}

	/** Opens a view of ours in the right sidebar, or shows the open one. */
	private async openView(type: string): Promise<void> {
		const existing = this.app.workspace.getLeavesOfType(type);
		const leaf = existing[0] ?? this.app.workspace.getRightLeaf(false);
		if (leaf === null) {
			return;
		}
		await leaf.setViewState({ type, active: true });
		await this.app.workspace.revealLeaf(leaf);
	}

	private async askWhy(): Promise<void> {
		const file = this.app.workspace.getActiveFile();
		if (file === null) {
			new Notice("Mindnet: open a note first");
			return;
		}
		const question = `Warum ${file.basename}?`;
		try {
			const [answer, context] = await Promise.all([
				this.client.ask(question),
				this.client.context(file.path, 2),
			]);
			new AnswerModal(this.app, question, answer, context.chains.causes).open();
		} catch (e) {
			this.report(e);
		}
	}

	private async lintVault(): Promise<void> {
		try {
			new LintModal(this.app, await this.client.lintVault()).open();
		} catch (e) {
			this.report(e);
		}
	}

	private async showStatus(): Promise<void> {
		try {
			const s = await this.client.status();
			new Notice(`mindnet: ${s.notes} notes, ${s.chunks} chunks, ${s.edges} edges (${s.model})`);
		} catch (e) {
			this.report(e);
		}
	}

	private async updateStatus(): Promise<void> {
		const item = this.statusItem;
		if (item === null) {
			return;
		}
		try {
			const s = await this.client.status();
			this.told = false;
			item.setText(s.sync.running ? `Mindnet: syncing, ${s.notes} notes` : `Mindnet: ${s.notes} notes`);
		} catch (e) {
			item.setText("Mindnet: not connected");
			if (e instanceof ServerUnreachable) {
				this.noServer();
			}
		}
	}

	private report(e: unknown): void {
		if (e instanceof ServerUnreachable) {
			this.told = false;
			this.noServer();
		} else {
			new Notice(`mindnet: ${e instanceof Error ? e.message : String(e)}`);
		}
	}

	/** One notice that says how to start the server; no repeats. */
	noServer(): void {
		if (this.told) {
			return;
		}
		this.told = true;
		new Notice(
			`mindnet: no server at ${this.settings.server}. Start it with: mindnet serve <your vault>`,
			10_000,
		);
	}
}

class MindnetSettingTab extends PluginSettingTab {
	constructor(
		app: App,
		private readonly plugin: MindnetPlugin,
	) {
		super(app, plugin);
	}

	display(): void {
		const { containerEl } = this;
		containerEl.empty();
		this.text("server", "Server address", "Where mindnet serve listens (it prints the address when it starts).");
		this.text("token", "Token", "Only when the server was started with --token.");
		this.slider("related", "Related notes", "How many related notes the pane shows, each with its reasons.", [1, 30, 1]);
		this.slider("maxNotes", "Notes around a note", "At most this many linked notes in the pane.", [5, 100, 5]);
	}

	/** A text setting, trimmed and saved as it is typed. */
	private text(key: "server" | "token", name: string, desc: string): void {
		new Setting(this.containerEl)
			.setName(name)
			.setDesc(desc)
			.addText((text) =>
				text.setValue(this.plugin.settings[key]).onChange(async (value) => {
					this.plugin.settings[key] = value.trim();
					await this.plugin.saveSettings();
				}),
			);
	}

	/** A number setting as a slider (min, max, step), saved as it moves. */
	private slider(key: "related" | "maxNotes", name: string, desc: string, [min, max, step]: [number, number, number]): void {
		new Setting(this.containerEl)
			.setName(name)
			.setDesc(desc)
			.addSlider((slider) =>
				slider
					.setLimits(min, max, step)
					.setValue(this.plugin.settings[key])
					.setDynamicTooltip()
					.onChange(async (value) => {
						this.plugin.settings[key] = value;
						await this.plugin.saveSettings();
					}),
			);
	}
}

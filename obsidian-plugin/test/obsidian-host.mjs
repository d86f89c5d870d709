// A small host standing in for the `obsidian` module, so that the plugin's
// views render into a jsdom document and its client talks to a real
// `mindnet serve` over HTTP. Only what the plugin uses is here, shaped as
// the official type definitions declare it.

// On the global object: the test and the bundled plugin each hold a copy
// of this module, and both must see the same notices.
export const notices = (globalThis.mindnetNotices ??= []);

export class Notice {
	constructor(message) {
		notices.push(String(message));
	}
}

/** `requestUrl` over Node's fetch: a network failure throws, as Obsidian's does. */
export async function requestUrl(req) {
	const init = { method: req.method ?? "GET", headers: req.headers ?? {} };
	if (req.body !== undefined) {
		init.body = req.body;
	}
	const r = await fetch(req.url, init);
	const text = await r.text();
	let json = null;
	try {
		json = JSON.parse(text);
	} catch {
		json = null;
	}
	if (r.status >= 400 && req.throw !== false) {
		throw new Error(`HTTP ${r.status}`);
	}
	return { status: r.status, text, json, headers: {}, arrayBuffer: new ArrayBuffer(0) };
}

export function debounce(fn, ms) {
	let timer = null;
	return (...args) => {
		clearTimeout(timer);
		timer = setTimeout(() => fn(...args), ms);
	};
}

export class TFile {
	constructor(path) {
		this.path = path;
		this.extension = path.split(".").pop();
		this.basename = path.split("/").pop().replace(/\.md$/, "");
	}
}

export class WorkspaceLeaf {
	constructor(app) {
		this.app = app;
	}
}

class Component {
	registerEvent() {}
	registerDomEvent(el, type, cb) {
		el.addEventListener(type, cb);
	}
	registerInterval(id) {
		return id;
	}
	register() {}
}

export class ItemView extends Component {
	constructor(leaf) {
		super();
		this.leaf = leaf;
		this.app = leaf.app;
		this.containerEl = document.createElement("div");
		this.contentEl = this.containerEl.createDiv();
	}
}

export class Plugin extends Component {
	constructor(app, manifest) {
		super();
		this.app = app;
		this.manifest = manifest;
		this.commands = [];
		this.views = new Map();
		this.statusItems = [];
		this.settingTabs = [];
		this.data = null;
	}
	async loadData() {
		return this.data;
	}
	async saveData(d) {
		this.data = d;
	}
	addCommand(c) {
		this.commands.push(c);
		return c;
	}
	registerView(type, factory) {
		this.views.set(type, factory);
	}
	addSettingTab(tab) {
		this.settingTabs.push(tab);
	}
	addStatusBarItem() {
		const el = document.createElement("div");
		this.statusItems.push(el);
		return el;
	}
}

/** Modals the plugin opened, newest last (global, as `notices`). */
export const opened = (globalThis.mindnetModals ??= []);

export class Modal {
	constructor(app) {
		this.app = app;
		this.contentEl = document.createElement("div");
	}
	open() {
		opened.push(this);
		this.onOpen?.();
	}
	close() {
		this.onClose?.();
	}
}

export class SuggestModal extends Modal {
	setPlaceholder(p) {
		this.placeholder = p;
	}
}

export class PluginSettingTab {
	constructor(app, plugin) {
		this.app = app;
		this.plugin = plugin;
		this.containerEl = document.createElement("div");
	}
}

export class Setting {
	constructor(containerEl) {
		this.el = containerEl.createDiv();
	}
	setName(n) {
		this.el.createDiv({ text: n });
		return this;
	}
	setDesc() {
		return this;
	}
	addText(cb) {
		const c = { setValue: () => c, onChange: () => c };
		cb(c);
		return this;
	}
	addSlider(cb) {
		const c = { setLimits: () => c, setValue: () => c, setDynamicTooltip: () => c, onChange: () => c };
		cb(c);
		return this;
	}
}

/** Obsidian's helpers on every element: createEl, createDiv, empty, … */
export function installDomHelpers(window) {
	const proto = window.HTMLElement.prototype;
	proto.createEl = function (tag, o = {}) {
		const el = window.document.createElement(tag);
		if (o.cls) el.className = Array.isArray(o.cls) ? o.cls.join(" ") : o.cls;
		if (o.text !== undefined) el.textContent = o.text;
		if (o.href !== undefined) el.setAttribute("href", o.href);
		this.appendChild(el);
		return el;
	};
	proto.createDiv = function (o = {}) {
		return this.createEl("div", o);
	};
	proto.createSpan = function (o = {}) {
		return this.createEl("span", o);
	};
	proto.empty = function () {
		this.replaceChildren();
	};
	proto.addClass = function (c) {
		this.classList.add(c);
	};
	proto.setText = function (t) {
		this.textContent = t;
	};
}

"use strict";
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

// src/main.ts
var main_exports = {};
__export(main_exports, {
  default: () => MindnetPlugin
});
module.exports = __toCommonJS(main_exports);
var import_obsidian6 = require("obsidian");

// src/api.ts
var import_obsidian = require("obsidian");
var DEFAULT_SETTINGS = {
  server: "http://127.0.0.1:8001",
  token: "",
  maxNotes: 20,
  related: 8
};
var ServerUnreachable = class extends Error {
};
var ServerError = class extends Error {
  constructor(status, code, message2) {
    super(message2);
    this.status = status;
    this.code = code;
  }
};
var MindnetClient = class {
  constructor(settings) {
    this.settings = settings;
  }
  status() {
    return this.call("GET", "/status");
  }
  /** The note's neighbourhood: typed edges with their sentences, and its chains. */
  context(path, hops) {
    const max = this.settings().maxNotes;
    const query = `note=${encodeURIComponent(path)}&hops=${hops}&max_notes=${max}`;
    return this.call("GET", `/graph/neighbors?${query}`);
  }
  /** A hybrid search, every hit with its reasons. */
  search(text, k) {
    return this.call("POST", "/query", { text, k });
  }
  /** A causal question, answered with its chains. */
  ask(question) {
    return this.call("POST", "/ask", { question });
  }
  /** One chat message, answered whole (with its citations). */
  chat(message2, session) {
    return this.call("POST", "/chat", chatBody(message2, session));
  }
  /**
   * One chat message, its answer streamed to `onText` as the server writes
   * it. `requestUrl` cannot stream, so this one call uses `fetch` (the
   * server allows Obsidian's origin); where `fetch` cannot reach the
   * server (a mobile app's origin), the answer comes whole.
   */
  async chatStreamed(message2, session, onText) {
    let response;
    try {
      response = await fetch(this.url("/chat"), {
        method: "POST",
        headers: { ...this.headers(), Accept: "text/event-stream" },
        body: JSON.stringify(chatBody(message2, session))
      });
    } catch {
      return this.chat(message2, session);
    }
    if (!response.ok || response.body === null) {
      const text = await response.text();
      throw serverError(response.status, parsed(text));
    }
    return readEvents(response.body, onText);
  }
  /** The notes that belong with a note, each with its reasons. */
  related(path, k) {
    return this.call("GET", `/related?note=${encodeURIComponent(path)}&k=${k}`);
  }
  /** The whole vault's findings (the server reads the files). */
  lintVault() {
    return this.call("POST", "/lint", {});
  }
  /** One note's findings, each with its safe fix where it has one. */
  lint(path) {
    return this.call("POST", "/lint", { note: path, fixes: true });
  }
  /** Writes a finding's fix, if the note is still at the version it was planned on. */
  applyFix(path, fix) {
    return this.call("POST", "/lint/fix", {
      note: path,
      line: fix.line,
      column: fix.column,
      version: fix.version,
      link_mentions: true,
      write: true
    });
  }
  url(path) {
    return this.settings().server.replace(/\/+$/, "") + path;
  }
  headers() {
    const headers = { "Content-Type": "application/json" };
    const { token } = this.settings();
    if (token !== "") {
      headers["Authorization"] = `Bearer ${token}`;
    }
    return headers;
  }
  async call(method, path, body) {
    const request = {
      url: this.url(path),
      method,
      headers: this.headers(),
      throw: false
    };
    if (body !== void 0) {
      request.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await (0, import_obsidian.requestUrl)(request);
    } catch {
      throw new ServerUnreachable(`no mindnet server at ${this.settings().server}`);
    }
    if (response.status >= 400) {
      throw serverError(response.status, parsed(response.text));
    }
    return response.json;
  }
};
function chatBody(message2, session) {
  return session === null ? { message: message2 } : { message: message2, session };
}
function serverError(status, body) {
  const error = body?.error;
  return new ServerError(status, error?.code ?? "http", error?.message ?? `HTTP ${status}`);
}
function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
async function readEvents(body, onText) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (; ; ) {
    const { done, value } = await reader.read();
    buffer += decoder.decode(value, { stream: !done });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const { name, data } = sseEvent(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (name === "token") {
        onText(parsed(data)?.text ?? "");
      } else if (name === "done") {
        await reader.cancel();
        return parsed(data);
      } else if (name === "error") {
        throw serverError(500, parsed(data));
      }
    }
    if (done) {
      throw new ServerError(502, "stream", "the server ended the answer before it was done");
    }
  }
}
function sseEvent(block) {
  let name = "message";
  const data = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith("event:")) {
      name = line.slice(6).trim();
    } else if (line.startsWith("data:")) {
      data.push(line.slice(5).replace(/^ /, ""));
    }
  }
  return { name, data: data.join("\n") };
}

// src/chat.ts
var import_obsidian3 = require("obsidian");

// src/render.ts
var import_obsidian2 = require("obsidian");
function chainTree(list, nodes, title) {
  for (const n of nodes) {
    const item = list.createEl("li");
    item.createSpan({ cls: "mindnet-kind", text: `${n.kind} ` });
    title(item, n);
    if (n.children.length > 0 && !n.repeated) {
      chainTree(item.createEl(list.tagName === "OL" ? "ol" : "ul", { cls: "mindnet-list" }), n.children, title);
    }
  }
}
function openNote(app, path) {
  const file = app.vault.getAbstractFileByPath(path);
  if (file instanceof import_obsidian2.TFile) {
    void app.workspace.getLeaf(false).openFile(file);
  }
}
function causalPaths(parent, paths, max) {
  for (const path of paths.slice(0, max)) {
    const list = parent.createEl("ol", { cls: "mindnet-list mindnet-chain" });
    const titles = new Map(path.notes.map((n) => [n.note_id, n.title]));
    for (const step of path.steps) {
      const item = list.createEl("li");
      item.createSpan({ text: `${titles.get(step.cause) ?? step.cause} ` });
      item.createSpan({ cls: "mindnet-kind", text: `\u2192 ${step.kind} \u2192 ` });
      item.createSpan({ text: titles.get(step.effect) ?? step.effect });
      if (step.evidence !== "") {
        item.createDiv({ cls: "mindnet-sentence", text: step.evidence });
      }
    }
  }
}

// src/chat.ts
var CHAT_VIEW_TYPE = "mindnet-chat";
var ChatView = class extends import_obsidian3.ItemView {
  constructor(leaf, client, unreachable) {
    super(leaf);
    this.client = client;
    this.unreachable = unreachable;
    this.session = null;
    this.log = null;
  }
  getViewType() {
    return CHAT_VIEW_TYPE;
  }
  getDisplayText() {
    return "Ask mindnet";
  }
  getIcon() {
    return "message-circle";
  }
  async onOpen() {
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
      const message2 = input.value.trim();
      if (message2 !== "") {
        input.value = "";
        void this.ask(message2);
      }
    });
    await Promise.resolve();
  }
  /** Sends one message; shows the answer as it comes, then whole. */
  async ask(message2) {
    const log = this.log;
    if (log === null) {
      return;
    }
    log.createDiv({ cls: "mindnet-chat-question", text: message2 });
    const pending = log.createDiv({ cls: "mindnet-chat-answer mindnet-chat-pending", text: "\u2026" });
    let written = "";
    try {
      const answer = await this.client.chatStreamed(message2, this.session, (text) => {
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
  show(log, answer) {
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
          item.createSpan({ cls: "mindnet-kind", text: ` \u203A ${heading}` });
        }
      }
    }
    for (const w of answer.warnings) {
      block.createEl("p", { cls: "mindnet-muted", text: w });
    }
  }
};

// src/modals.ts
var import_obsidian4 = require("obsidian");
var TYPING_PAUSE_MS = 250;
var SearchModal = class extends import_obsidian4.SuggestModal {
  constructor(app, client, failed) {
    super(app);
    this.client = client;
    this.failed = failed;
    this.timer = null;
    this.setPlaceholder("Search the vault with mindnet");
  }
  getSuggestions(query) {
    if (this.timer !== null) {
      window.clearTimeout(this.timer);
    }
    if (query.trim().length < 2) {
      return Promise.resolve([]);
    }
    return new Promise((resolve) => {
      this.timer = window.setTimeout(() => {
        this.client.search(query, 10).then((a) => resolve(a.hits)).catch((e) => {
          this.failed(e);
          resolve([]);
        });
      }, TYPING_PAUSE_MS);
    });
  }
  renderSuggestion(hit, el) {
    el.createDiv({ text: hit.title });
    el.createDiv({ cls: "mindnet-kind", text: `${hit.score.toFixed(2)} \xB7 ${hit.reasons.slice(0, 2).join(" \xB7 ")}` });
  }
  onChooseSuggestion(hit) {
    openNote(this.app, hit.path);
  }
};
var AnswerModal = class extends import_obsidian4.Modal {
  constructor(app, question, answer, causes) {
    super(app);
    this.question = question;
    this.answer = answer;
    this.causes = causes;
  }
  onOpen() {
    const { contentEl } = this;
    contentEl.empty();
    contentEl.addClass("mindnet-pane");
    contentEl.createEl("h4", { text: this.question });
    const paths = this.answer.causal?.paths ?? [];
    if (paths.length === 0 && this.causes.length > 0) {
      contentEl.createEl("p", { cls: "mindnet-muted", text: "Its causes, as the notes link them:" });
      chainTree(
        contentEl.createEl("ol", { cls: "mindnet-list" }),
        this.causes,
        (item, n) => item.createSpan({ text: n.title })
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
  onClose() {
    this.contentEl.empty();
  }
};
var MAX_LISTED = 200;
var LintModal = class extends import_obsidian4.Modal {
  constructor(app, report) {
    super(app);
    this.report = report;
  }
  onOpen() {
    const { contentEl } = this;
    contentEl.empty();
    contentEl.addClass("mindnet-pane");
    const count = (s) => this.report.findings.filter((f) => f.severity === s).length;
    contentEl.createEl("h4", { text: `Linter: ${this.report.notes} notes` });
    contentEl.createEl("p", {
      text: `${count("error")} errors, ${count("warning")} warnings, ${count("recommendation")} recommendations`
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
  onClose() {
    this.contentEl.empty();
  }
};

// src/view.ts
var import_obsidian5 = require("obsidian");
var VIEW_TYPE = "mindnet-note";
var REASONS_SHOWN = 3;
var NoteView = class extends import_obsidian5.ItemView {
  constructor(leaf, client, relatedCount, unreachable) {
    super(leaf);
    this.client = client;
    this.relatedCount = relatedCount;
    this.unreachable = unreachable;
    this.shown = null;
  }
  getViewType() {
    return VIEW_TYPE;
  }
  getDisplayText() {
    return "Mindnet";
  }
  getIcon() {
    return "network";
  }
  async onOpen() {
    const refresh = (0, import_obsidian5.debounce)(() => void this.refresh(false), 800, true);
    this.registerEvent(this.app.workspace.on("active-leaf-change", () => void this.refresh(false)));
    this.registerEvent(
      this.app.vault.on("modify", (file) => {
        if (file.path === this.shown) {
          refresh();
        }
      })
    );
    await this.refresh(true);
  }
  /** Shows the active note; `force` shows it again even if it is shown. */
  async refresh(force) {
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
        this.client.lint(file.path)
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
  related(root, hits) {
    root.createEl("h5", { text: `Related (${hits.length})` });
    const list = root.createEl("ul", { cls: "mindnet-list" });
    for (const h of hits) {
      const item = list.createEl("li");
      this.noteLink(item, h.title, h.path);
      item.createSpan({ cls: "mindnet-kind", text: ` ${h.score.toFixed(2)} \xB7 ${h.type}` });
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
  links(root, graph) {
    const titles = new Map(graph.nodes.map((n) => [n.note_id, n]));
    const outgoing = graph.edges.filter((e) => e.from === graph.start && e.to !== graph.start);
    const incoming = graph.edges.filter((e) => e.to === graph.start && e.from !== graph.start);
    for (const [heading, edges, other] of [
      ["Links out", outgoing, (e) => e.to],
      ["Links in", incoming, (e) => e.from]
    ]) {
      const byNote = groupBy(edges, other);
      root.createEl("h5", { text: `${heading} (${byNote.size})` });
      const list = root.createEl("ul", { cls: "mindnet-list" });
      for (const [id, group] of byNote) {
        const node = titles.get(id);
        if (node === void 0) {
          continue;
        }
        const item = list.createEl("li");
        this.noteLink(item, node.title, node.path);
        const kinds = group.map((e) => `${e.kind} \xB7 ${e.provenance}`);
        item.createSpan({ cls: "mindnet-kind", text: ` ${[...new Set(kinds)].join(", ")}` });
        const sentences = new Set(group.map((e) => e.sentence).filter((x) => x !== null));
        for (const sentence of sentences) {
          item.createDiv({ cls: "mindnet-sentence", text: sentence });
        }
      }
    }
    if (graph.truncated) {
      root.createEl("p", { cls: "mindnet-muted", text: "More notes around it than the pane shows." });
    }
  }
  chains(root, graph) {
    const { causes, effects } = graph.chains;
    if (causes.length === 0 && effects.length === 0) {
      return;
    }
    for (const [heading, nodes] of [
      ["Causes", causes],
      ["Effects", effects]
    ]) {
      if (nodes.length === 0) {
        continue;
      }
      root.createEl("h5", { text: heading });
      chainTree(
        root.createEl("ul", { cls: "mindnet-list" }),
        nodes,
        (item, n) => this.noteLink(item, n.title, n.path)
      );
    }
  }
  /** Each finding; one the linter can fix safely shows its change and an apply button. */
  findings(root, findings) {
    root.createEl("h5", { text: `Linter (${findings.length})` });
    const list = root.createEl("ul", { cls: "mindnet-list" });
    for (const f of findings) {
      const item = list.createEl("li", { cls: `mindnet-${f.severity}` });
      item.createSpan({ cls: "mindnet-kind", text: `${f.rule}, line ${f.line}: ` });
      item.createSpan({ text: f.message });
      const fix = f.fix;
      if (fix === void 0) {
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
  async apply(path, fix) {
    try {
      const report = await this.client.applyFix(path, fix);
      const file = report.files.find((f) => f.path === path);
      if (file?.written === true) {
        new import_obsidian5.Notice(`Mindnet: fixed line ${fix.line}`);
      } else {
        new import_obsidian5.Notice(`Mindnet: not fixed: ${file?.error ?? "nothing to fix there any more"}`);
      }
    } catch (e) {
      new import_obsidian5.Notice(`Mindnet: not fixed: ${message(e)}`);
    }
    await this.refresh(true);
  }
  noteLink(parent, title, path) {
    const a = parent.createEl("a", { cls: "mindnet-note", text: title, href: "#" });
    this.registerDomEvent(a, "click", (evt) => {
      evt.preventDefault();
      openNote(this.app, path);
    });
  }
};
function groupBy(items, key) {
  const groups = /* @__PURE__ */ new Map();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === void 0) {
      groups.set(k, [item]);
    } else {
      group.push(item);
    }
  }
  return groups;
}
function message(e) {
  return e instanceof Error ? e.message : String(e);
}

// src/main.ts
var STATUS_EVERY_MS = 3e4;
var MindnetPlugin = class extends import_obsidian6.Plugin {
  constructor() {
    super(...arguments);
    this.settings = { ...DEFAULT_SETTINGS };
    this.client = new MindnetClient(() => this.settings);
    this.statusItem = null;
    /** Set once the user was told no server runs, until one answers again. */
    this.told = false;
  }
  async onload() {
    await this.loadSettings();
    this.registerView(VIEW_TYPE, (leaf) => new NoteView(
      leaf,
      this.client,
      () => this.settings.related,
      () => this.noServer()
    ));
    this.registerView(CHAT_VIEW_TYPE, (leaf) => new ChatView(leaf, this.client, () => this.noServer()));
    this.addSettingTab(new MindnetSettingTab(this.app, this));
    this.addCommand({
      id: "open-pane",
      name: "Open the pane for the current note",
      callback: () => void this.openView(VIEW_TYPE)
    });
    this.addCommand({
      id: "open-chat",
      name: "Open the chat",
      callback: () => void this.openView(CHAT_VIEW_TYPE)
    });
    this.addCommand({
      id: "search",
      name: "Search the vault",
      callback: () => new SearchModal(this.app, this.client, (e) => this.report(e)).open()
    });
    this.addCommand({
      id: "ask-why",
      name: "Ask why about the current note",
      callback: () => void this.askWhy()
    });
    this.addCommand({
      id: "lint-note",
      name: "Lint the current note",
      callback: () => void this.openView(VIEW_TYPE)
    });
    this.addCommand({
      id: "lint-vault",
      name: "Lint the vault",
      callback: () => void this.lintVault()
    });
    this.addCommand({
      id: "show-status",
      name: "Show the index status",
      callback: () => void this.showStatus()
    });
    this.statusItem = this.addStatusBarItem();
    this.registerInterval(window.setInterval(() => void this.updateStatus(), STATUS_EVERY_MS));
    this.app.workspace.onLayoutReady(() => void this.updateStatus());
  }
  async loadSettings() {
    this.settings = { ...DEFAULT_SETTINGS, ...await this.loadData() };
  }
  async saveSettings() {
    await this.saveData(this.settings);
  }
  /** Opens a view of ours in the right sidebar, or shows the open one. */
  async openView(type) {
    const existing = this.app.workspace.getLeavesOfType(type);
    const leaf = existing[0] ?? this.app.workspace.getRightLeaf(false);
    if (leaf === null) {
      return;
    }
    await leaf.setViewState({ type, active: true });
    await this.app.workspace.revealLeaf(leaf);
  }
  async askWhy() {
    const file = this.app.workspace.getActiveFile();
    if (file === null) {
      new import_obsidian6.Notice("Mindnet: open a note first");
      return;
    }
    const question = `Warum ${file.basename}?`;
    try {
      const [answer, context] = await Promise.all([
        this.client.ask(question),
        this.client.context(file.path, 2)
      ]);
      new AnswerModal(this.app, question, answer, context.chains.causes).open();
    } catch (e) {
      this.report(e);
    }
  }
  async lintVault() {
    try {
      new LintModal(this.app, await this.client.lintVault()).open();
    } catch (e) {
      this.report(e);
    }
  }
  async showStatus() {
    try {
      const s = await this.client.status();
      new import_obsidian6.Notice(`mindnet: ${s.notes} notes, ${s.chunks} chunks, ${s.edges} edges (${s.model})`);
    } catch (e) {
      this.report(e);
    }
  }
  async updateStatus() {
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
  report(e) {
    if (e instanceof ServerUnreachable) {
      this.told = false;
      this.noServer();
    } else {
      new import_obsidian6.Notice(`mindnet: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  /** One notice that says how to start the server; no repeats. */
  noServer() {
    if (this.told) {
      return;
    }
    this.told = true;
    new import_obsidian6.Notice(
      `mindnet: no server at ${this.settings.server}. Start it with: mindnet serve <your vault>`,
      1e4
    );
  }
};
var MindnetSettingTab = class extends import_obsidian6.PluginSettingTab {
  constructor(app, plugin) {
    super(app, plugin);
    this.plugin = plugin;
  }
  display() {
    const { containerEl } = this;
    containerEl.empty();
    this.text("server", "Server address", "Where mindnet serve listens (it prints the address when it starts).");
    this.text("token", "Token", "Only when the server was started with --token.");
    this.slider("related", "Related notes", "How many related notes the pane shows, each with its reasons.", [1, 30, 1]);
    this.slider("maxNotes", "Notes around a note", "At most this many linked notes in the pane.", [5, 100, 5]);
  }
  /** A text setting, trimmed and saved as it is typed. */
  text(key, name, desc) {
    new import_obsidian6.Setting(this.containerEl).setName(name).setDesc(desc).addText(
      (text) => text.setValue(this.plugin.settings[key]).onChange(async (value) => {
        this.plugin.settings[key] = value.trim();
        await this.plugin.saveSettings();
      })
    );
  }
  /** A number setting as a slider (min, max, step), saved as it moves. */
  slider(key, name, desc, [min, max, step]) {
    new import_obsidian6.Setting(this.containerEl).setName(name).setDesc(desc).addSlider(
      (slider) => slider.setLimits(min, max, step).setValue(this.plugin.settings[key]).setDynamicTooltip().onChange(async (value) => {
        this.plugin.settings[key] = value;
        await this.plugin.saveSettings();
      })
    );
  }
};

// The mindnet web UI: a thin shell over the HTTP API of `mindnet serve`.
// Every piece of data comes from one endpoint; nothing is computed here
// that the server does not say.
import { t, setLang, currentLang, applyTexts } from "/ui/i18n.js";
import { drawGraph } from "/ui/graph.js";

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

// ---- API ----------------------------------------------------------------

function headers(extra = {}) {
  const h = { ...extra };
  const token = localStorage.getItem("mindnet.token");
  if (token) h.authorization = `Bearer ${token}`;
  return h;
}

async function api(path, options = {}) {
  const r = await fetch(path, { ...options, headers: headers(options.headers) });
  if (r.status === 401) {
    const token = prompt(t("token_prompt"));
    if (token) {
      localStorage.setItem("mindnet.token", token);
      return api(path, options);
    }
  }
  const body = await r.json().catch(() => null);
  if (!r.ok) throw new Error((body && body.error && body.error.message) || `HTTP ${r.status}`);
  return body;
}

function post(path, body) {
  return api(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function toast(text) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.hidden = true), 4000);
}

// ---- Chat ---------------------------------------------------------------

let session = sessionStorage.getItem("mindnet.session") || null;

/// Reads a server-sent event stream, calling `on(name, data)` per event.
async function readEvents(response, on) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trimStart();
      }
      if (data) on(name, JSON.parse(data));
    }
  }
}

function modeLabel(mode) {
  const kind = t(`mode_${mode.kind}`);
  return mode.model ? `${kind}: ${mode.provider} ${mode.model.split("/").pop()}` : kind;
}

function badges(meta) {
  return el(
    "p",
    { class: "badges" },
    el("span", { class: "badge strategy", title: `${meta.route.by} ${meta.route.detail}` },
      `${meta.strategy.toUpperCase()} · ${meta.intent}`),
    el("span", { class: `badge mode ${meta.mode.kind}` }, modeLabel(meta.mode)),
  );
}

/// A line of a note's Markdown as the reader sees it: **strong**, *emphasis*,
/// `code`, [[Note|alias]] and [text](url) as their text. Only elements and
/// text nodes are made, never markup from the note.
function inline(text) {
  const out = [];
  const pattern = /\*\*(.+?)\*\*|__(.+?)__|\*(\S(?:.*?\S)?)\*|`([^`]+)`|!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]|\[([^\]]+)\]\([^)]*\)/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    out.push(text.slice(last, m.index));
    const [, strong, strong2, em, code, target, alias, label] = m;
    if (strong !== undefined || strong2 !== undefined) out.push(el("strong", {}, strong ?? strong2));
    else if (em !== undefined) out.push(el("em", {}, em));
    else if (code !== undefined) out.push(el("code", {}, code));
    else if (target !== undefined) out.push(alias || target);
    else out.push(label);
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

/// The answer's text with each [n] a link to source n.
function withCitations(text, sources, turn) {
  const p = el("div", { class: "answer-text" });
  const known = new Set(sources.map((s) => s.n));
  for (const line of text.split("\n")) {
    const row = el("p");
    let last = 0;
    for (const m of line.matchAll(/\[(\d+)\]/g)) {
      row.append(...inline(line.slice(last, m.index)));
      const n = Number(m[1]);
      row.append(
        known.has(n)
          ? el("a", { href: `#src-${turn}-${n}`, class: "cite", onclick: (e) => openSource(e, turn, n) }, `[${n}]`)
          : m[0],
      );
      last = m.index + m[0].length;
    }
    row.append(...inline(line.slice(last)));
    p.append(row);
  }
  return p;
}

function openSource(event, turn, n) {
  const target = document.getElementById(`src-${turn}-${n}`);
  if (target) {
    event.preventDefault();
    target.open = true;
    target.scrollIntoView({ block: "nearest" });
    target.querySelector("summary").focus();
  }
}

function rating(queryId, nodeId, label) {
  const box = el("span", { class: "rating", role: "group", "aria-label": label }, el("span", { class: "rating-label" }, `${label}:`));
  for (let score = 1; score <= 5; score++) {
    box.append(
      el("button", {
        type: "button",
        class: "star",
        "aria-label": `${label}: ${score}/5`,
        onclick: async () => {
          try {
            await post("/feedback", { query_id: queryId, node_id: nodeId, score });
            box.dataset.rated = String(score);
            for (const b of box.querySelectorAll(".star")) b.setAttribute("aria-pressed", String(b.textContent === String(score)));
            toast(`${t("thanks")} (${score}/5)`);
          } catch (e) {
            toast(`${t("error")}: ${e.message}`);
          }
        },
      }, String(score)),
    );
  }
  return box;
}

function sourceList(response, turn) {
  const list = el("div", { class: "sources", "aria-label": t("sources") });
  for (const s of response.sources) {
    const h = s.hit;
    const b = h.score_breakdown;
    const bars = el("dl", { class: "bars" });
    for (const key of ["semantic", "edge_bonus", "centrality"]) {
      bars.append(
        el("dt", {}, t(key)),
        el("dd", {}, el("meter", { min: 0, max: 1, value: Math.max(0, b[key]), "aria-label": t(key) }), ` ${b[key].toFixed(3)}`),
      );
    }
    list.append(
      el("details", { id: `src-${turn}-${s.n}`, class: "source" },
        el("summary", {},
          `[${s.n}] `,
          el("a", { href: "#", class: "note-link", onclick: (e) => { e.preventDefault(); openNote(h.note_id); } }, h.title),
          h.section && h.section !== h.title ? ` › ${h.section.split(" > ").pop()}` : "",
          el("span", { class: `type type-${h.type}` }, h.type),
          el("span", { class: "score" }, h.score.toFixed(3)),
          s.injected ? el("span", { class: "badge small" }, t("strategic")) : null,
        ),
        el("p", { class: "why-title" }, t("why")),
        bars,
        el("ul", { class: "reasons" }, h.reasons.map((r) => el("li", {}, r))),
        el("blockquote", { class: "snippet" }, h.text.slice(0, 600)),
        rating(response.query_id, h.chunk_id, t("rate_source")),
      ),
    );
  }
  return list;
}

/// The explanation subgraph of a causal answer; each edge's provenance
/// comes from the path step that walked it.
function explanation(causal) {
  const provenance = new Map();
  for (const p of causal.paths) for (const step of p.steps) provenance.set(step.edge_id, step.provenance);
  const graph = {
    nodes: causal.subgraph.nodes,
    edges: causal.subgraph.edges.map((e) => ({ ...e, provenance: provenance.get(e.edge_id) })),
  };
  return el("section", { class: "explanation" },
    el("h3", {}, t("explanation_graph")),
    drawGraph(graph, { onOpen: openNote, label: t("explanation_graph") }));
}

let answerCount = 0;

async function ask(message) {
  const turnId = ++answerCount;
  const turn = el("article", { class: "turn" }, el("p", { class: "question" }, message));
  const body = el("div", { class: "answer", "aria-busy": "true" });
  turn.append(body);
  $("conversation").append(turn);
  turn.scrollIntoView({ block: "end" });
  const live = el("div", { class: "answer-text streaming" });
  body.append(live);
  try {
    const r = await fetch("/chat", {
      method: "POST",
      headers: headers({ "content-type": "application/json", accept: "text/event-stream" }),
      body: JSON.stringify({ message, session, lang: currentLang() }),
    });
    if (!r.ok) {
      const e = await r.json().catch(() => null);
      throw new Error((e && e.error && e.error.message) || `HTTP ${r.status}`);
    }
    let done = null;
    await readEvents(r, (name, data) => {
      if (name === "meta") body.prepend(badges(data));
      else if (name === "token") live.textContent += data.text;
      else if (name === "done") done = data;
      else if (name === "error") throw new Error(data.error.message);
    });
    if (!done) throw new Error("the answer ended early");
    session = done.session;
    sessionStorage.setItem("mindnet.session", session);
    live.replaceWith(withCitations(done.answer, done.sources, turnId));
    for (const w of done.warnings) body.append(el("p", { class: "warning" }, w));
    if (done.draft) {
      storeDraft(done.draft);
      body.append(el("p", {}, el("button", { type: "button", onclick: () => show("draft") }, t("draft_ready"))));
    }
    if (done.causal && done.causal.subgraph.nodes.length) body.append(explanation(done.causal));
    if (done.sources.length) body.append(sourceList(done, turnId));
    body.append(el("p", { class: "rate-answer" }, rating(done.query_id, "generated_answer", t("rate_answer"))));
  } catch (e) {
    body.append(el("p", { class: "error", role: "alert" }, `${t("error")}: ${e.message}`));
  } finally {
    body.setAttribute("aria-busy", "false");
    refreshHistory();
  }
}

// ---- Notes --------------------------------------------------------------

async function openNote(id) {
  try {
    const n = await api(`/notes/${encodeURIComponent(id)}`);
    $("note-title").textContent = n.note.title;
    $("note-meta").textContent = `${n.note.type} · ${n.note.status} · ${n.note.path}`;
    $("note-text").replaceChildren(...n.chunks.map((c) => el("pre", { class: "chunk" }, c.text)));
    const around = await api(`/graph/neighbors?note=${encodeURIComponent(n.note.note_id)}&hops=1`);
    const titles = new Map(around.nodes.map((x) => [x.note_id, x.title]));
    const edge = (e, otherId) =>
      el("li", {}, `${e.kind} `,
        el("a", { href: "#", onclick: (ev) => { ev.preventDefault(); openNote(otherId); } }, titles.get(otherId) || otherId));
    $("note-out").replaceChildren(...n.edges_out.filter((e) => e.resolved).map((e) => edge(e, e.target_id.split("#")[0])));
    $("note-in").replaceChildren(...n.edges_in.map((e) => edge(e, e.note_id)));
    $("note-graph").replaceChildren(
      drawGraph({ nodes: around.nodes, edges: around.edges }, { onOpen: openNote, label: t("neighbourhood") }),
    );
    const lint = await post("/lint", { note: n.note.path, lang: currentLang() });
    $("note-lint").replaceChildren(
      ...(lint.findings.length
        ? lint.findings.map((f) => el("li", { class: `finding ${f.severity}` }, `${f.line}:${f.column} ${f.rule}: ${f.message}`))
        : [el("li", {}, t("lint_clean"))]),
    );
    const fixes = await post("/lint/fix", { note: n.note.path });
    const mine = fixes.files.find((f) => f.path === n.note.path);
    $("note-fix").hidden = !mine;
    const fixLine = (f) => (f.line ? `${t("line")} ${f.line}: ${f.what}` : f.what);
    $("note-diff").textContent = mine ? `${mine.fixes.map(fixLine).join("\n")}\n\n${mine.diff}` : "";
    $("note").hidden = false;
    $("note-close").focus();
  } catch (e) {
    toast(`${t("error")}: ${e.message}`);
  }
}

// ---- Sidebar ------------------------------------------------------------

async function refreshHistory() {
  try {
    const h = await api("/history?limit=30");
    const list = $("history");
    list.replaceChildren(
      ...h.entries.map((e) =>
        el("li", {}, el("button", { type: "button", class: "history-entry", title: e.timestamp, onclick: () => ask(e.text) }, e.text)),
      ),
    );
    if (!h.entries.length) list.append(el("li", { class: "empty" }, t("no_history")));
  } catch (e) {
    // The index may still be opening; the next refresh tries again.
  }
}

function facts(target, rows) {
  target.replaceChildren(...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}

async function refreshStatus() {
  try {
    const s = await api("/status");
    const rows = [
      [t("model"), `${s.model} (${s.dim})`],
      [t("notes"), s.notes],
      [t("chunks"), s.chunks],
      [t("edges"), s.edges],
      [t("last_import"), s.last_import || "–"],
    ];
    if (s.sync.running) rows.push([t("syncing"), `${s.sync.embedded} / ${s.sync.to_embed}`]);
    facts($("status"), rows);
  } catch (e) {
    facts($("status"), [[t("error"), e.message]]);
  }
}

async function refreshConfig() {
  try {
    const c = await api("/config");
    facts($("config"), [[t("llm"), c.llm], ...c.files.map((f) => [f.name, f.path])]);
  } catch (e) {
    facts($("config"), [[t("error"), e.message]]);
  }
}

// ---- Views ----------------------------------------------------------------

function show(view) {
  for (const b of document.querySelectorAll("#tabs button")) b.setAttribute("aria-pressed", String(b.dataset.view === view));
  for (const v of ["chat", "search", "draft"]) $(`view-${v}`).hidden = v !== view;
  localStorage.setItem("mindnet.view", view);
  if (view === "draft") loadDraft();
}

// ---- Search -------------------------------------------------------------

/// A hit's score and what it is made of: two hits of one score still say
/// why one comes first.
function scoreParts(h) {
  const b = h.score_breakdown;
  const graph = b.edge_bonus + b.centrality + (b.hop || 0) + (b.walk || 0);
  return graph > 0.0005
    ? `${h.score.toFixed(3)} = ${b.semantic.toFixed(3)} ${t("semantic")} + ${graph.toFixed(3)} ${t("graph")}`
    : `${h.score.toFixed(3)} ${t("semantic")}`;
}

async function search(e) {
  e.preventDefault();
  const list = (id) => ($(id).value.trim() ? [$(id).value.trim()] : []);
  try {
    const r = await post("/query", {
      text: $("q").value, k: 20, lang: currentLang(),
      types: list("f-type"), tags: list("f-tag"), statuses: list("f-status"), paths: list("f-path"),
    });
    $("hits").replaceChildren(
      ...(r.hits.length
        ? r.hits.map((h) =>
            el("li", { class: "hit" },
              el("a", { href: "#", class: "note-link", onclick: (ev) => { ev.preventDefault(); openNote(h.note_id); } }, h.title),
              h.section && h.section !== h.title ? el("span", { class: "section" }, ` › ${h.section.split(" > ").pop()}`) : "",
              " ",
              el("span", { class: `type type-${h.type}` }, h.type),
              el("span", { class: "score", title: t("score_parts") }, scoreParts(h)),
              el("blockquote", { class: "snippet" }, ...inline(h.text.replace(/\s+/g, " ").slice(0, 300))),
              el("ul", { class: "reasons" }, h.reasons.map((x) => el("li", {}, x))),
            ))
        : [el("li", {}, t("no_hits"))]),
    );
    refreshHistory();
  } catch (err) {
    $("hits").replaceChildren(el("li", { class: "error", role: "alert" }, `${t("error")}: ${err.message}`));
  }
}

// ---- Draft editor (kept in localStorage: it survives views and reloads) --

function storeDraft(d) {
  localStorage.setItem("mindnet.draft", JSON.stringify({
    title: d.title || "", folder: "", text: d.markdown, type: d.type, repairs: d.repairs, missing: d.missing,
  }));
}

function loadDraft() {
  const raw = localStorage.getItem("mindnet.draft");
  $("draft").hidden = !raw;
  $("draft-empty").hidden = Boolean(raw);
  if (!raw) return;
  const d = JSON.parse(raw);
  $("d-title").value = d.title;
  $("d-folder").value = d.folder || "";
  $("d-text").value = d.text;
  $("d-messages").replaceChildren(
    ...(d.repairs || []).map((r) => el("li", { class: "repair" }, `${t("repaired")}: ${r}`)),
    ...(d.missing || []).map((m) => el("li", { class: "missing" }, `${t("missing")}: ${m}`)),
  );
}

function keepEdits() {
  const raw = localStorage.getItem("mindnet.draft");
  if (!raw) return;
  const d = JSON.parse(raw);
  d.title = $("d-title").value;
  d.folder = $("d-folder").value;
  d.text = $("d-text").value;
  localStorage.setItem("mindnet.draft", JSON.stringify(d));
}

async function saveDraft(overwrite) {
  const d = JSON.parse(localStorage.getItem("mindnet.draft") || "{}");
  $("d-conflict").hidden = true;
  const r = await fetch("/ingest/save", {
    method: "POST",
    headers: headers({ "content-type": "application/json" }),
    body: JSON.stringify({ title: d.title, text: d.text, type: d.type, folder: d.folder || null, overwrite }),
  });
  const body = await r.json().catch(() => null);
  if (r.status === 409) {
    $("d-conflict").hidden = false;
    $("d-overwrite").focus();
    return;
  }
  if (!r.ok) {
    toast(`${t("error")}: ${(body && body.error && body.error.message) || r.status}`);
    return;
  }
  localStorage.removeItem("mindnet.draft");
  toast(`${t("saved")}: ${body.path}`);
  loadDraft();
  openNote(body.note_id);
}

// ---- Start --------------------------------------------------------------

function start() {
  applyTexts();
  $("lang").textContent = currentLang() === "de" ? "EN" : "DE";
  $("lang").addEventListener("click", () => {
    setLang(currentLang() === "de" ? "en" : "de");
    $("lang").textContent = currentLang() === "de" ? "EN" : "DE";
  });
  $("ask").addEventListener("submit", (e) => {
    e.preventDefault();
    const m = $("message").value.trim();
    if (m) {
      $("message").value = "";
      ask(m);
    }
  });
  $("message").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      $("ask").requestSubmit();
    }
  });
  $("note-close").addEventListener("click", () => ($("note").hidden = true));
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => show(b.dataset.view));
  $("search").addEventListener("submit", search);
  for (const id of ["d-title", "d-folder", "d-text"]) $(id).addEventListener("input", keepEdits);
  $("draft").addEventListener("submit", (e) => { e.preventDefault(); saveDraft(false); });
  $("d-overwrite").addEventListener("click", () => saveDraft(true));
  $("d-keep").addEventListener("click", () => ($("d-conflict").hidden = true));
  show(localStorage.getItem("mindnet.view") || "chat");
  refreshHistory();
  refreshStatus();
  refreshConfig();
  setInterval(refreshStatus, 5000);
}

start();

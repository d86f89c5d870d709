// A graph of notes as SVG, laid out in layers without randomness: a cause
// stands left of its effect, and within a layer notes are ordered by
// title, so the same graph always looks the same. Note types are colours,
// edge kinds are labels, provenance is the line style; a legend explains
// them. Clicking (or Enter on) a node opens the note.
import { t } from "/ui/i18n.js";

const NS = "http://www.w3.org/2000/svg";
const PALETTE = {
  experience: "#c8553d", decision: "#2f5d8a", state: "#8a6d3b", strategy: "#3d7a5c",
  principle: "#6b4c9a", value: "#b8860b", concept: "#5f6b73", project: "#1f7a8c",
  source: "#7a5c3d", person: "#a14d72", insight: "#888888", journal: "#4f6d2f",
};
const DASH = { explicit: "", smart: "6 3", rule: "2 3", structure: "1 4", mention: "8 3 1 3" };
const COL = 210;
const ROW = 56;
const W = 170;
const H = 34;

function svg(tag, attrs = {}) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

export function colour(type) {
  if (PALETTE[type]) return PALETTE[type];
  let h = 0;
  for (const c of type) h = (h * 31 + c.charCodeAt(0)) % 360;
  return `hsl(${h} 35% 40%)`;
}

/// Layers by the longest path from a note without causes; a cycle is cut
/// at the note that comes first by title.
function layers(nodes, edges) {
  const byId = new Map(nodes.map((n) => [n.note_id, n]));
  const incoming = new Map(nodes.map((n) => [n.note_id, []]));
  for (const e of edges) {
    if (byId.has(e.from) && byId.has(e.to) && e.from !== e.to) incoming.get(e.to).push(e.from);
  }
  const layer = new Map();
  const visiting = new Set();
  const depth = (id) => {
    if (layer.has(id)) return layer.get(id);
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const d = Math.max(-1, ...incoming.get(id).map(depth)) + 1;
    visiting.delete(id);
    layer.set(id, d);
    return d;
  };
  const ordered = [...nodes].sort((a, b) => a.title.localeCompare(b.title) || a.note_id.localeCompare(b.note_id));
  for (const n of ordered) depth(n.note_id);
  const columns = [];
  for (const n of ordered) {
    const d = layer.get(n.note_id);
    (columns[d] ||= []).push(n);
  }
  // A cut cycle can leave a layer empty.
  return columns.filter(Boolean);
}

/// Draws `graph` ({nodes, edges}; an edge may carry `provenance`) into a
/// new <figure>.
export function drawGraph(graph, { onOpen, label }) {
  const columns = layers(graph.nodes, graph.edges);
  const pos = new Map();
  columns.forEach((col, x) =>
    col.forEach((n, y) => pos.set(n.note_id, { x: 10 + x * COL, y: 10 + y * ROW, n })),
  );
  const width = Math.max(1, columns.length) * COL + 20;
  const height = Math.max(1, ...columns.map((c) => c.length)) * ROW + 20;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": label, class: "graph",
  });
  const defs = svg("defs");
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" });
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#555" }));
  defs.append(marker);
  root.append(defs);
  for (const e of graph.edges) {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    if (!a || !b) continue;
    const x1 = a.x + W;
    const y1 = a.y + H / 2;
    const x2 = b.x;
    const y2 = b.y + H / 2;
    const line = svg("line", {
      x1, y1, x2: x2 > x1 ? x2 : b.x + W / 2, y2: x2 > x1 ? y2 : b.y,
      stroke: "#555", "stroke-width": 1.4, "marker-end": "url(#arrow)",
      "stroke-dasharray": DASH[e.provenance] ?? "", class: `edge provenance-${e.provenance || "unknown"}`,
    });
    const text = svg("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 4, class: "edge-label", "text-anchor": "middle" });
    text.textContent = e.kind;
    root.append(line, text);
  }
  for (const { x, y, n } of pos.values()) {
    const g = svg("g", { class: "node", tabindex: 0, role: "button", "data-note": n.note_id, "aria-label": `${n.title} (${n.type})` });
    const rect = svg("rect", { x, y, width: W, height: H, rx: 6, fill: colour(n.type) });
    const text = svg("text", { x: x + 8, y: y + 21, class: "node-label" });
    text.textContent = n.title.length > 24 ? `${n.title.slice(0, 23)}…` : n.title;
    const title = svg("title");
    title.textContent = `${n.title} · ${n.type}`;
    g.append(rect, text, title);
    const open = () => onOpen(n.note_id);
    g.addEventListener("click", open);
    g.addEventListener("keydown", (ev) => (ev.key === "Enter" || ev.key === " ") && (ev.preventDefault(), open()));
    root.append(g);
  }
  const figure = document.createElement("figure");
  figure.className = "graph-box";
  figure.append(root, legend(graph));
  return figure;
}

function legend(graph) {
  const box = document.createElement("figcaption");
  box.className = "legend";
  const types = [...new Set(graph.nodes.map((n) => n.type))].sort();
  for (const type of types) {
    const s = document.createElement("span");
    s.className = "legend-type";
    const dot = document.createElement("i");
    dot.style.background = colour(type);
    s.append(dot, type);
    box.append(s);
  }
  const provenances = [...new Set(graph.edges.map((e) => e.provenance).filter(Boolean))].sort();
  for (const p of provenances) {
    const s = document.createElement("span");
    s.className = `legend-line provenance-${p}`;
    s.textContent = `${DASH[p] ? "- - -" : "———"} ${p}`;
    box.append(s);
  }
  const count = document.createElement("span");
  count.className = "legend-count";
  count.textContent = `${graph.nodes.length} ${t("notes")}`;
  box.append(count);
  return box;
}

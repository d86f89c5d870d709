// A graph of notes as SVG, laid out in layers without randomness: a cause
// stands left of its effect (above it, when the graph is deeper than it is
// wide, as a why chain is: so a chain of six fits a phone), and within a
// layer notes are ordered by title, so the same graph always looks the
// same. The drawing scales down to its panel, never past it. Note types are
// colours, edge kinds are labels, provenance is the line style; a legend
// explains them, and names the note under the pointer or the focus in
// full. Clicking (or Enter on) a node opens the note.
import { t } from "/ui/i18n.js";

const NS = "http://www.w3.org/2000/svg";
const PALETTE = {
  experience: "#c8553d", decision: "#2f5d8a", state: "#8a6d3b", strategy: "#3d7a5c",
  principle: "#6b4c9a", value: "#b8860b", concept: "#5f6b73", project: "#1f7a8c",
  source: "#7a5c3d", person: "#a14d72", insight: "#888888", journal: "#4f6d2f",
};
const DASH = { explicit: "", smart: "6 3", rule: "2 3", structure: "1 4", mention: "8 3 1 3" };
const W = 170;
const H = 44;
/// From one layer to the next, and between notes of a layer.
const STEP = { across: 230, down: 74 };
const GAP = { down: 58 };
/// Characters of a title per line of its node (two lines).
const LINE = 24;

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

/// A title in at most two lines of its node, cut at a space where one is
/// near; the rest is elided (the legend shows it whole).
function titleLines(title) {
  if (title.length <= LINE) return [title];
  let cut = title.lastIndexOf(" ", LINE);
  if (cut < LINE / 3) cut = LINE;
  const rest = title.slice(cut).trim();
  return [title.slice(0, cut), rest.length > LINE ? `${rest.slice(0, LINE - 1)}…` : rest];
}

/// Draws `graph` ({nodes, edges}; an edge may carry `provenance`) into a
/// new <figure>.
export function drawGraph(graph, { onOpen, label }) {
  const columns = layers(graph.nodes, graph.edges);
  const widest = Math.max(1, ...columns.map((c) => c.length));
  // Layers left to right, or top to bottom when there are more of them
  // than notes in the widest.
  const down = columns.length > widest;
  const pos = new Map();
  columns.forEach((col, l) =>
    col.forEach((n, i) => {
      const [x, y] = down ? [10 + i * STEP.across, 10 + l * STEP.down] : [10 + l * STEP.across, 10 + i * GAP.down];
      pos.set(n.note_id, { x, y, n });
    }),
  );
  const spots = [...pos.values()];
  const width = Math.max(0, ...spots.map((p) => p.x)) + W + 10;
  const height = Math.max(0, ...spots.map((p) => p.y)) + H + 10;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, class: "graph",
  });
  // Through the CSSOM: the page's policy refuses style attributes.
  root.style.maxWidth = `${width}px`;
  const defs = svg("defs");
  const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" });
  marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#555" }));
  defs.append(marker);
  root.append(defs);
  for (const e of graph.edges) {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    if (!a || !b) continue;
    // From the side of a that faces b's layer to the side of b facing a.
    const [x1, y1, x2, y2] = down
      ? b.y > a.y
        ? [a.x + W / 2, a.y + H, b.x + W / 2, b.y]
        : [a.x + W, a.y + H / 2, b.x + W, b.y + H / 2]
      : b.x > a.x
        ? [a.x + W, a.y + H / 2, b.x, b.y + H / 2]
        : [a.x + W / 2, a.y + H, b.x + W / 2, b.y + H];
    const line = svg("line", {
      x1, y1, x2, y2,
      stroke: "#555", "stroke-width": 1.4, "marker-end": "url(#arrow)",
      "stroke-dasharray": DASH[e.provenance] ?? "", class: `edge provenance-${e.provenance || "unknown"}`,
    });
    // Beside the line's middle, clear of the line and of its arrow head.
    const text = down
      ? svg("text", { x: (x1 + x2) / 2 + 8, y: (y1 + y2) / 2 + 4, class: "edge-label", "text-anchor": "start" })
      : svg("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 6, class: "edge-label", "text-anchor": "middle" });
    text.textContent = e.kind;
    root.append(line, text);
  }
  const caption = legend(graph);
  const focused = caption.querySelector(".legend-focus");
  for (const { x, y, n } of pos.values()) {
    const full = `${n.title} (${n.type})`;
    const g = svg("g", { class: "node", tabindex: 0, role: "button", "data-note": n.note_id, "aria-label": full });
    const rect = svg("rect", { x, y, width: W, height: H, rx: 6, fill: colour(n.type) });
    const text = svg("text", { x: x + 8, y: y + 18, class: "node-label" });
    const lines = titleLines(n.title);
    lines.forEach((line, i) => {
      const span = svg("tspan", { x: x + 8, dy: i ? 15 : lines.length > 1 ? -1 : 6 });
      span.textContent = line;
      text.append(span);
    });
    const title = svg("title");
    title.textContent = `${n.title} · ${n.type}`;
    g.append(rect, text, title);
    const open = () => onOpen(n.note_id);
    const show = () => (focused.textContent = full);
    g.addEventListener("click", open);
    g.addEventListener("keydown", (ev) => (ev.key === "Enter" || ev.key === " ") && (ev.preventDefault(), open()));
    g.addEventListener("focus", show);
    g.addEventListener("mouseenter", show);
    root.append(g);
  }
  const figure = document.createElement("figure");
  figure.className = "graph-box";
  figure.append(root, caption);
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
  // The full name of the note under the pointer or the focus.
  const focus = document.createElement("output");
  focus.className = "legend-focus";
  box.append(count, focus);
  return box;
}

// The web UI in a real browser (Debian's Chromium through playwright-core)
// against a real `mindnet serve` on the demo vault, started by the Rust
// test `crates/mindnet-cli/tests/ui.rs`, which passes:
//   MINDNET_UI_URL   the server's base URL
//   MINDNET_UI_SHOTS where to save screenshots
//   PLAYWRIGHT_CORE  playwright-core's entry module (installed by scripts/test)
// Exits non-zero with a message on the first failed check.
const { chromium } = await import(process.env.PLAYWRIGHT_CORE);

const url = process.env.MINDNET_UI_URL;
const shots = process.env.MINDNET_UI_SHOTS;
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
const errors = [];
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
// Chromium logs every 4xx fetch as an error; the 409 of the deliberate
// second save is an answer the UI handles, not a fault.
page.on("console", (m) => m.type() === "error" && !/409 \(Conflict\)/.test(m.text()) && errors.push(m.text()));
page.on("pageerror", (e) => errors.push(String(e)));

// First load: what the browser fetched, in bytes on the wire.
let bytes = 0;
page.on("response", async (r) => {
  if (r.url().startsWith(url) && r.request().resourceType() !== "fetch") {
    const body = await r.body().catch(() => Buffer.alloc(0));
    bytes += body.length;
  }
});
await page.goto(url);
await page.waitForSelector("#history");
console.log(`first load: ${bytes} bytes of assets`);

// A question gets an answer, its sources and its badges.
await page.fill("#message", "Warum habe ich mich für Qdrant entschieden?");
await page.press("#message", "Enter");
await page.waitForSelector(".turn .source", { timeout: 60000 });
const badges = await page.textContent(".turn .badges");
if (!/WHY/.test(badges)) fail(`badges: ${badges}`);
if (!/Auszug/.test(badges)) fail(`mode badge: ${badges}`);
const reply = await page.textContent(".turn .answer-text");
if (/\*\*|\[\[/.test(reply)) fail(`the reply shows raw Markdown: ${reply}`);
const sources = await page.$$(".turn .source");
if (sources.length < 3) fail(`${sources.length} sources`);
// A citation opens its source, which shows its "why".
const cite = await page.$(".turn .cite");
if (!cite) fail("no citation link");
await cite.click();
const open = await page.$(".turn details.source[open]");
if (!open) fail("the citation did not open its source");
const reasons = await open.$$(".reasons li");
if (!reasons.length) fail("no reasons in the open source");
await page.screenshot({ path: `${shots}/chat.png`, fullPage: true });

// By keyboard: a source opens with Enter on its summary.
await page.evaluate(() => document.querySelectorAll(".turn details.source").forEach((d) => (d.open = false)));
await page.focus(".turn details.source summary");
await page.keyboard.press("Enter");
if (!(await page.$(".turn details.source[open]"))) fail("Enter did not open a source");

// The causal answer draws its explanation graph; a node opens its note.
const nodes = await page.$$(".turn .explanation .node");
if (nodes.length < 2) fail(`${nodes.length} nodes in the explanation graph`);
console.log(`explanation graph: ${nodes.length} nodes`);
const wanted = (await nodes[0].getAttribute("aria-label")).replace(/ \(.*$/, "");
await nodes[0].focus();
await page.keyboard.press("Enter");
await page.waitForSelector("#note:not([hidden])");
const opened = await page.textContent("#note-title");
if (opened !== wanted) fail(`clicked ${wanted}, opened ${opened}`);
// Every node of the chat's graphs, and of a why chain of six notes with
// long titles drawn into the same panel, lies inside its panel and the
// window at this width.
async function graphsFit(where) {
  const bad = await page.evaluate(async () => {
    const { drawGraph } = await import("/ui/graph.js");
    const nodes = [...Array(6).keys()].map((i) => ({
      note_id: `c${i}`, title: `Eine lange Überschrift der Notiz Nummer ${i} im Verlauf`, type: "experience",
    }));
    const edges = [...Array(5).keys()].map((i) => ({ from: `c${i}`, to: `c${i + 1}`, kind: "resulted_in", provenance: "explicit" }));
    // The chat's explanation panel; the conversation itself once the
    // language switch has drawn the turns again.
    const host = document.querySelector(".turn .explanation") ?? document.querySelector("#conversation");
    const chain = drawGraph({ nodes, edges }, { onOpen: () => {}, label: "chain" });
    host.append(chain);
    const outside = [];
    for (const box of document.querySelectorAll("#conversation .graph-box")) {
      const b = box.getBoundingClientRect();
      const panel = (box.closest(".turn") ?? host).getBoundingClientRect();
      for (const n of box.querySelectorAll(".node")) {
        const r = n.getBoundingClientRect();
        const right = Math.min(b.right, panel.right, window.innerWidth);
        if (r.left < Math.max(b.left, panel.left) - 1 || r.right > right + 1) outside.push(n.getAttribute("aria-label"));
      }
    }
    chain.remove();
    return outside;
  });
  if (bad.length) fail(`${where}: nodes outside the graph's panel: ${bad.join(", ")}`);
}
await graphsFit("1280 px");
const around = await page.$$("#note-graph .node");
if (around.length < 2) fail(`${around.length} nodes around the note`);
await page.screenshot({ path: `${shots}/graph.png`, fullPage: true });
await page.click("#note-close");

// Feedback on the answer is confirmed.
await page.click(".rate-answer .star >> text=4");
await page.waitForSelector("#toast:not([hidden])");
const toast = await page.textContent("#toast");
if (!/4\/5/.test(toast)) fail(`toast: ${toast}`);

// The history shows the question; clicking it asks again.
await page.waitForSelector(".history-entry");
const first = await page.textContent(".history-entry");
if (!/Qdrant/.test(first)) fail(`history: ${first}`);
await page.click(".history-entry");
await page.waitForFunction(() => document.querySelectorAll(".turn").length === 2, null, { timeout: 60000 });

// A source's note opens with its links.
await page.click(".turn .note-link");
await page.waitForSelector("#note:not([hidden])");
const title = await page.textContent("#note-title");
if (!title) fail("the note has no title");

// A note whose edges use an alias shows the linter's finding and the fix.
await page.evaluate(() => document.querySelector("#note").hidden = true);
await page.click("#tabs button[data-view=search]");
await page.fill("#q", "Jeden Morgen laufen");
await page.fill("#f-type", "decision");
await page.click("#search button[type=submit]");
await page.waitForSelector("#hits .hit");
await page.click("#hits .hit .note-link >> text=Jeden Morgen laufen");
await page.waitForSelector("#note:not([hidden])");
const findings = await page.textContent("#note-lint");
if (!/alias-not-canonical/.test(findings)) fail(`lint panel: ${findings}`);
await page.waitForSelector("#note-fix:not([hidden])");
await page.click("#note-fix summary");
const diff = await page.textContent("#note-diff");
if (!/caused_by/.test(diff) || !/^-/m.test(diff)) fail(`fix preview: ${diff}`);
await page.screenshot({ path: `${shots}/lint.png`, fullPage: true });
await page.click("#tabs button[data-view=chat]");
await page.screenshot({ path: `${shots}/note.png`, fullPage: true });

// Search with a type filter: every hit has that type, with its reasons.
await page.click("#tabs button[data-view=search]");
await page.fill("#q", "Qdrant");
await page.fill("#f-type", "decision");
await page.click("#search button[type=submit]");
await page.waitForSelector("#hits .hit");
const types = await page.$$eval("#hits .hit .type", (els) => els.map((e) => e.textContent));
if (!types.length || types.some((x) => x !== "decision")) fail(`hit types: ${types}`);
// Each hit shows the passage that matched, its title apart from its type,
// and what its score is made of.
const hit = await page.$eval("#hits .hit", (e) => ({
  text: e.innerText,
  snippet: e.querySelector(".snippet")?.textContent ?? "",
  score: e.querySelector(".score")?.textContent ?? "",
  title: e.querySelector(".note-link")?.textContent ?? "",
}));
if (hit.snippet.trim().length < 20) fail(`no passage in the hit: ${hit.text}`);
if (hit.text.includes(`${hit.title}decision`)) fail(`title runs into the type: ${hit.text}`);
if (!/^\d\.\d{3}( = \d\.\d{3} \S+ \+ \d\.\d{3} \S+| \S+)$/.test(hit.score)) fail(`score parts: ${hit.score}`);
await page.screenshot({ path: `${shots}/search.png`, fullPage: true });

// An interview gives a draft; it survives a reload, saves, and a second
// save of the same name asks before replacing.
await page.click("#tabs button[data-view=chat]");
await page.fill("#message", "Neuer Wert festhalten: Geduld");
await page.press("#message", "Enter");
await page.waitForFunction(() => /Frage 1/.test(document.querySelector(".turn:last-child .answer").textContent), null, { timeout: 30000 });
await page.fill("#message", "Abwarten können, wenn es zählt.");
await page.press("#message", "Enter");
await page.waitForSelector(".turn:last-child button >> text=Entwurf", { timeout: 30000 });
await page.click(".turn:last-child button >> text=Entwurf");
await page.waitForSelector("#draft:not([hidden])");
await page.fill("#d-folder", "Werte");
await page.reload();
await page.waitForSelector("#draft:not([hidden])");
if ((await page.inputValue("#d-title")) !== "Geduld") fail("the draft's title after a reload");
if ((await page.inputValue("#d-folder")) !== "Werte") fail("the draft's folder after a reload");
if (!/## Bedeutung/.test(await page.inputValue("#d-text"))) fail("the draft's text after a reload");
await page.screenshot({ path: `${shots}/draft.png`, fullPage: true });
await page.click("#d-save");
await page.waitForSelector("#note:not([hidden])");
if ((await page.textContent("#note-title")) !== "geduld") {
  const got = await page.textContent("#note-title");
  if (!/geduld/i.test(got)) fail(`saved note: ${got}`);
}
const lint = await page.textContent("#note-lint");
if (!lint) fail("no lint panel");

// The same draft again: the name exists, and the user is asked.
await page.evaluate(() => localStorage.setItem("mindnet.draft", JSON.stringify({ title: "Geduld", folder: "Werte", text: "---\ntype: value\n---\nNoch einmal.\n", type: "value" })));
await page.click("#tabs button[data-view=draft]");
await page.click("#d-save");
await page.waitForSelector("#d-conflict:not([hidden])");
await page.click("#d-keep");
await page.click("#tabs button[data-view=chat]");

// English, and phone width.
await page.click("#lang");
const send = await page.textContent("#send");
if (send !== "Send") fail(`language switch: ${send}`);
await page.setViewportSize({ width: 390, height: 844 });
await page.screenshot({ path: `${shots}/phone.png`, fullPage: true });
await graphsFit("390 px");

// The status and the configuration are shown.
const status = await page.textContent("#status");
if (!/use-m3/.test(status)) fail(`status: ${status}`);
const config = await page.textContent("#config");
if (!/types\.yaml/.test(config)) fail(`config: ${config}`);

// The same graph renders the same (a stable layout), and 300 notes are
// timed (reported, not asserted: benchmarks live in docs/benchmarks.md).
const big = await page.evaluate(async () => {
  const { drawGraph } = await import("/ui/graph.js");
  const types = ["experience", "decision", "state", "principle", "concept"];
  const nodes = [...Array(300).keys()].map((i) => ({ note_id: `n${i}`, title: `Notiz ${i}`, type: types[i % 5] }));
  const edges = [...Array(299).keys()].map((i) => ({ from: `n${Math.floor(i / 3)}`, to: `n${i + 1}`, kind: "resulted_in", provenance: "explicit", edge_id: `e${i}` }));
  // A cycle, as a vault may have one.
  edges.push({ from: "n299", to: "n0", kind: "caused_by", provenance: "rule", edge_id: "loop" });
  const render = () => drawGraph({ nodes, edges }, { onOpen: () => {}, label: "test" }).outerHTML;
  const same = render() === render();
  const t0 = performance.now();
  const fig = drawGraph({ nodes, edges }, { onOpen: () => {}, label: "test" });
  document.body.append(fig);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const ms = performance.now() - t0;
  fig.remove();
  return { same, ms };
});
if (!big.same) fail("two renders of one graph differ");
console.log(`graph of 300 notes rendered in ${big.ms.toFixed(0)} ms`);

// Every control has a name a screen reader can say.
const unnamed = await page.evaluate(() =>
  [...document.querySelectorAll("button, input, textarea, [role=button]")]
    .filter((e) => !(e.getAttribute("aria-label") || e.textContent.trim() || (e.id && document.querySelector(`label[for="${e.id}"]`)) || e.closest("label")))
    .map((e) => e.outerHTML.slice(0, 80)),
);
if (unnamed.length) fail(`controls without a name: ${unnamed.join(" | ")}`);

if (errors.length) fail(`console errors: ${errors.join(" | ")}`);
await browser.close();
console.log("ok");

// What every test script of the plugin starts with: a jsdom document as
// the global DOM, the host module standing in for `obsidian` (with the
// element helpers Obsidian adds), and the plugin's sources bundled with
// `obsidian` resolved to that host.

import { build } from "esbuild";
import { JSDOM } from "jsdom";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** `{ dom, host, plugin, out }`: `plugin` is `test/entry.ts`'s exports, bundled to `out`. */
export async function loadPlugin() {
	const dom = new JSDOM("<!doctype html><body></body>");
	globalThis.window = dom.window;
	globalThis.document = dom.window.document;
	globalThis.HTMLElement = dom.window.HTMLElement;
	const host = await import(join(here, "obsidian-host.mjs"));
	host.installDomHelpers(dom.window);
	const out = join(mkdtempSync(join(tmpdir(), "mindnet-plugin-")), "plugin.mjs");
	await build({
		entryPoints: [join(here, "entry.ts")],
		bundle: true,
		format: "esm",
		platform: "node",
		outfile: out,
		alias: { obsidian: join(here, "obsidian-host.mjs") },
		logLevel: "warning",
	});
	return { dom, host, plugin: await import(out), out };
}

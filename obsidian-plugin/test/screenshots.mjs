// Screenshots of what the plugin's own code rendered (in jsdom, against a
// real server): its pane and its chat, each beside the note, in light and
// dark. Obsidian cannot run here, so the page around them is a plain
// frame and the app's theme variables come from test/theme.css.
//
// Used by pane.test.mjs when MINDNET_PLUGIN_SHOTS names a folder and
// PLAYWRIGHT_CORE names playwright-core (scripts/test installs both).

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

function page(theme, note, title, panel) {
	const css = readFileSync(join(here, "theme.css"), "utf8") + readFileSync(join(here, "..", "styles.css"), "utf8");
	return `<!doctype html><html><head><meta charset="utf-8"><style>${css}</style></head>
<body class="theme-${theme}"><div class="frame">
<div class="editor"><pre></pre></div>
<div class="sidebar"><div class="view-header"></div>${panel}</div>
</div><script>
document.querySelector(".editor pre").textContent = ${script(note)};
document.querySelector(".view-header").textContent = ${script(title)};
</script></body></html>`;
}

/** A string as a script literal that cannot end the script early. */
function script(text) {
	return JSON.stringify(text).replace(/</g, "\\u003c");
}

/** Saves `<name>-light.png` and `<name>-dark.png` of each panel into `dir`. */
export async function shoot(dir, note, panels) {
	const { chromium } = await import(process.env.PLAYWRIGHT_CORE);
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		args: ["--no-sandbox", "--disable-gpu"],
	});
	try {
		const tab = await browser.newPage({ viewport: { width: 1200, height: 900 } });
		for (const { name, title, html } of panels) {
			for (const theme of ["light", "dark"]) {
				await tab.setContent(page(theme, note, title, html));
				await tab.screenshot({ path: join(dir, `obsidian-${name}-${theme}.png`), fullPage: true });
			}
		}
	} finally {
		await browser.close();
	}
}

// The client of a running `mindnet serve`: every call goes through
// Obsidian's `requestUrl` to the configured address, and nowhere else.
// The plugin reads no note's text itself; the server does.

import { requestUrl } from "obsidian";
import type { RequestUrlParam, RequestUrlResponse } from "obsidian";

export interface MindnetSettings {
	/** The address `mindnet serve` listens on. */
	server: string;
	/** The bearer token, when the server asks for one. */
	token: string;
	/** How many notes around the active note the pane shows. */
	maxNotes: number;
	/** How many related notes the pane shows. */
	related: number;
}

export const DEFAULT_SETTINGS: MindnetSettings = {
	server: "http://127.0.0.1:8001",
	token: "",
	maxNotes: 20,
	related: 8,
};

/** No server answered at the configured address. */
export class ServerUnreachable extends Error {}

/** The server answered with one of mindnet's errors. */
export class ServerError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

export interface SyncProgress {
	running: boolean;
}

export interface Status {
	notes: number;
	chunks: number;
	edges: number;
	model: string;
	sync: SyncProgress;
}

export interface GraphNode {
	note_id: string;
	title: string;
	type: string;
	path: string;
	hops: number;
}

export interface GraphEdge {
	from: string;
	to: string;
	kind: string;
	provenance: string;
	edge_id: string;
	sentence: string | null;
}

export interface ChainNode {
	title: string;
	path: string;
	type: string;
	kind: string;
	forward_kind: string;
	repeated: boolean;
	children: ChainNode[];
}

export interface Chains {
	title: string;
	path: string;
	causes: ChainNode[];
	effects: ChainNode[];
}

export interface Graph {
	start: string;
	nodes: GraphNode[];
	edges: GraphEdge[];
	truncated: boolean;
	chains: Chains;
}

export interface Hit {
	note_id: string;
	title: string;
	path: string;
	type: string;
	status: string;
	score: number;
	/** Why it ranks where it does: meaning, shared names, typed edges, type and status. */
	reasons: string[];
}

export interface PathNote {
	note_id: string;
	title: string;
	type: string;
}

export interface PathStep {
	cause: string;
	effect: string;
	kind: string;
	evidence: string;
}

export interface CausalPath {
	/** Cause first. */
	notes: PathNote[];
	steps: PathStep[];
}

export interface Answer {
	hits: Hit[];
	causal: { paths: CausalPath[] } | null;
}

export interface Citation {
	n: number;
	title: string;
	path: string;
	section: string;
}

export interface ChatAnswer {
	session: string;
	answer: string;
	citations: Citation[];
	warnings: string[];
	/** For a causal question: the chains the answer stands on. */
	causal?: { paths: CausalPath[] };
}

export interface Related {
	note_id: string;
	title: string;
	path: string;
	hits: Hit[];
}

/** A finding's safe fix; `applyFix` with its line, column and version writes it. */
export interface FindingFix {
	line: number;
	column: number;
	what: string;
	/** The version of the note it was planned on. */
	version: string;
}

export interface Finding {
	path: string;
	line: number;
	column: number;
	rule: string;
	severity: "error" | "warning" | "recommendation";
	message: string;
	fix?: FindingFix;
}

export interface LintReport {
	notes: number;
	findings: Finding[];
}

export interface FileFix {
	path: string;
	written: boolean;
	error: string | null;
}

export interface FixReport {
	files: FileFix[];
	skipped: string[];
}

export class MindnetClient {
	constructor(private readonly settings: () => MindnetSettings) {}

	status(): Promise<Status> {
		return this.call<Status>("GET", "/status");
	}

	/** The note's neighbourhood: typed edges with their sentences, and its chains. */
	context(path: string, hops: number): Promise<Graph> {
		const max = this.settings().maxNotes;
		const query = `note=${encodeURIComponent(path)}&hops=${hops}&max_notes=${max}`;
		return this.call<Graph>("GET", `/graph/neighbors?${query}`);
	}

	/** A hybrid search, every hit with its reasons. */
	search(text: string, k: number): Promise<Answer> {
		return this.call<Answer>("POST", "/query", { text, k });
	}

	/** A causal question, answered with its chains. */
	ask(question: string): Promise<Answer> {
		return this.call<Answer>("POST", "/ask", { question });
	}

	/** One chat message, answered whole (with its citations). */
	chat(message: string, session: string | null): Promise<ChatAnswer> {
		return this.call<ChatAnswer>("POST", "/chat", chatBody(message, session));
	}

	/**
	 * One chat message, its answer streamed to `onText` as the server writes
	 * it. `requestUrl` cannot stream, so this one call uses `fetch` (the
	 * server allows Obsidian's origin); where `fetch` cannot reach the
	 * server (a mobile app's origin), the answer comes whole.
	 */
	async chatStreamed(message: string, session: string | null, onText: (text: string) => void): Promise<ChatAnswer> {
		let response: Response;
		try {
			response = await fetch(this.url("/chat"), {
				method: "POST",
				headers: { ...this.headers(), Accept: "text/event-stream" },
				body: JSON.stringify(chatBody(message, session)),
			});
		} catch {
			return this.chat(message, session);
		}
		if (!response.ok || response.body === null) {
			const text = await response.text();
			throw serverError(response.status, parsed(text));
		}
		return readEvents(response.body, onText);
	}

	/** The notes that belong with a note, each with its reasons. */
	related(path: string, k: number): Promise<Related> {
		return this.call<Related>("GET", `/related?note=${encodeURIComponent(path)}&k=${k}`);
	}

	/** The whole vault's findings (the server reads the files). */
	lintVault(): Promise<LintReport> {
		return this.call<LintReport>("POST", "/lint", {});
	}

	/** One note's findings, each with its safe fix where it has one. */
	lint(path: string): Promise<LintReport> {
		return this.call<LintReport>("POST", "/lint", { note: path, fixes: true });
	}

	/** Writes a finding's fix, if the note is still at the version it was planned on. */
	applyFix(path: string, fix: FindingFix): Promise<FixReport> {
		return this.call<FixReport>("POST", "/lint/fix", {
			note: path,
			line: fix.line,
			column: fix.column,
			version: fix.version,
			link_mentions: true,
			write: true,
		});
	}

	private url(path: string): string {
		return this.settings().server.replace(/\/+$/, "") + path;
	}

	private headers(): Record<string, string> {
		const headers: Record<string, string> = { "Content-Type": "application/json" };
		const { token } = this.settings();
		if (token !== "") {
			headers["Authorization"] = `Bearer ${token}`;
		}
		return headers;
	}

	private async call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
		const request: RequestUrlParam = {
			url: this.url(path),
			method,
			headers: this.headers(),
			throw: false,
		};
		if (body !== undefined) {
			request.body = JSON.stringify(body);
		}
		let response: RequestUrlResponse;
		try {
			response = await requestUrl(request);
		} catch {
			throw new ServerUnreachable(`no mindnet server at ${this.settings().server}`);
		}
		if (response.status >= 400) {
			throw serverError(response.status, parsed(response.text));
		}
		return response.json as T;
	}
}

/** A chat message, in its session when there is one. */
function chatBody(message: string, session: string | null): Record<string, string> {
	return session === null ? { message } : { message, session };
}

/** mindnet's error body, `{"error": {"code", "message"}}`, as an exception. */
function serverError(status: number, body: unknown): ServerError {
	const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
	return new ServerError(status, error?.code ?? "http", error?.message ?? `HTTP ${status}`);
}

function parsed(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return null;
	}
}

/**
 * The chat's server-sent events: `token`s go to `onText`, `done` carries
 * the whole answer, `error` mindnet's error.
 */
async function readEvents(body: ReadableStream<Uint8Array>, onText: (text: string) => void): Promise<ChatAnswer> {
	const reader = body.getReader();
	const decoder = new TextDecoder();
	let buffer = "";
	for (;;) {
		const { done, value } = await reader.read();
		buffer += decoder.decode(value, { stream: !done });
		let end: number;
		while ((end = buffer.indexOf("\n\n")) >= 0) {
			const { name, data } = sseEvent(buffer.slice(0, end));
			buffer = buffer.slice(end + 2);
			if (name === "token") {
				onText((parsed(data) as { text?: string } | null)?.text ?? "");
			} else if (name === "done") {
				await reader.cancel();
				return parsed(data) as ChatAnswer;
			} else if (name === "error") {
				throw serverError(500, parsed(data));
			}
		}
		if (done) {
			throw new ServerError(502, "stream", "the server ended the answer before it was done");
		}
	}
}

/** One event of a stream: its name and its data lines joined. */
function sseEvent(block: string): { name: string; data: string } {
	let name = "message";
	const data: string[] = [];
	for (const line of block.split(/\r?\n/)) {
		if (line.startsWith("event:")) {
			name = line.slice(6).trim();
		} else if (line.startsWith("data:")) {
			data.push(line.slice(5).replace(/^ /, ""));
		}
	}
	return { name, data: data.join("\n") };
}

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
}

export interface Related {
	note_id: string;
	title: string;
	path: string;
	hits: Hit[];
}

export interface Finding {
	path: string;
	line: number;
	column: number;
	rule: string;
	severity: "error" | "warning" | "recommendation";
	message: string;
}

export interface LintReport {
	notes: number;
	findings: Finding[];
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
		const body: Record<string, string> = { message };
		if (session !== null) {
			body["session"] = session;
		}
		return this.call<ChatAnswer>("POST", "/chat", body);
	}

	/** The notes that belong with a note, each with its reasons. */
	related(path: string, k: number): Promise<Related> {
		return this.call<Related>("GET", `/related?note=${encodeURIComponent(path)}&k=${k}`);
	}

	/** The whole vault's findings (the server reads the files). */
	lintVault(): Promise<LintReport> {
		return this.call<LintReport>("POST", "/lint", {});
	}

	lint(path: string): Promise<LintReport> {
		return this.call<LintReport>("POST", "/lint", { note: path });
	}

	private async call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
		const { server, token } = this.settings();
		const headers: Record<string, string> = { "Content-Type": "application/json" };
		if (token !== "") {
			headers["Authorization"] = `Bearer ${token}`;
		}
		const request: RequestUrlParam = {
			url: server.replace(/\/+$/, "") + path,
			method,
			headers,
			throw: false,
		};
		if (body !== undefined) {
			request.body = JSON.stringify(body);
		}
		let response: RequestUrlResponse;
		try {
			response = await requestUrl(request);
		} catch {
			throw new ServerUnreachable(`no mindnet server at ${server}`);
		}
		if (response.status >= 400) {
			const error = (response.json as { error?: { code?: string; message?: string } } | null)?.error;
			throw new ServerError(
				response.status,
				error?.code ?? "http",
				error?.message ?? `HTTP ${response.status}`,
			);
		}
		return response.json as T;
	}
}

// The UI's own texts, German by default. Notes are shown as they are.
const TEXTS = {
  de: {
    tab_chat: "Chat",
    history: "Verlauf",
    status: "Index",
    config: "Konfiguration",
    message_label: "Nachricht",
    message_placeholder: "Frag deine Notizen …",
    send: "Senden",
    close: "Schließen",
    links: "Verweise",
    backlinks: "Rückverweise",
    sources: "Quellen",
    why: "Warum dieser Treffer",
    rate_answer: "Antwort bewerten",
    rate_source: "Quelle bewerten",
    thanks: "Danke, gespeichert",
    strategic: "strategisch",
    mode_extractive: "Auszug (ohne Sprachmodell)",
    mode_interview: "Interview",
    mode_llm: "Sprachmodell",
    model: "Modell",
    notes: "Notizen",
    chunks: "Abschnitte",
    edges: "Kanten",
    last_import: "Letzter Import",
    syncing: "Synchronisiert",
    llm: "Sprachmodell",
    error: "Fehler",
    token_prompt: "Dieser Server braucht ein Token (MINDNET_API_TOKEN):",
    no_history: "Noch keine Fragen.",
    lang_switch: "Sprache wechseln",
    semantic: "Inhalt",
    graph: "Graph",
    line: "Zeile",
    score_parts: "Punktzahl: was der Inhalt trifft, und was der Graph dazugibt",
    edge_bonus: "Kanten",
    centrality: "Zentralität",
    draft: "Entwurf",
    explanation_graph: "Erklärungsgraph",
    neighbourhood: "Nachbarschaft",
    tab_search: "Suche",
    tab_draft: "Entwurf",
    query: "Suchtext",
    filter_type: "Typ",
    filter_tag: "Tag",
    filter_status: "Status",
    filter_path: "Pfad",
    search: "Suchen",
    no_hits: "Keine Treffer.",
    draft_empty: "Noch kein Entwurf. Beginne im Chat ein Interview, etwa „Neue Entscheidung festhalten“.",
    draft_title: "Titel",
    draft_folder: "Ordner",
    draft_text: "Markdown",
    save: "Speichern",
    saved: "Gespeichert",
    exists: "Eine Notiz dieses Namens gibt es schon.",
    overwrite: "Ersetzen",
    keep: "Behalten",
    repaired: "Repariert",
    missing: "Pflichtfeld fehlt",
    lint: "Prüfung",
    lint_clean: "Keine Befunde.",
    draft_ready: "Entwurf bereit: Ansicht „Entwurf“",
    fix_preview: "Korrekturvorschau",
  },
  en: {
    tab_chat: "Chat",
    history: "History",
    status: "Index",
    config: "Configuration",
    message_label: "Message",
    message_placeholder: "Ask your notes …",
    send: "Send",
    close: "Close",
    links: "Links",
    backlinks: "Backlinks",
    sources: "Sources",
    why: "Why this hit",
    rate_answer: "Rate the answer",
    rate_source: "Rate this source",
    thanks: "Thanks, saved",
    strategic: "strategic",
    mode_extractive: "Extract (no language model)",
    mode_interview: "Interview",
    mode_llm: "Language model",
    model: "Model",
    notes: "Notes",
    chunks: "Chunks",
    edges: "Edges",
    last_import: "Last import",
    syncing: "Syncing",
    llm: "Language model",
    error: "Error",
    token_prompt: "This server needs a token (MINDNET_API_TOKEN):",
    no_history: "No questions yet.",
    lang_switch: "Switch language",
    semantic: "Content",
    graph: "graph",
    line: "line",
    score_parts: "Score: what the content matches, and what the graph adds",
    edge_bonus: "Edges",
    centrality: "Centrality",
    draft: "Draft",
    explanation_graph: "Explanation graph",
    neighbourhood: "Neighbourhood",
    tab_search: "Search",
    tab_draft: "Draft",
    query: "Search text",
    filter_type: "Type",
    filter_tag: "Tag",
    filter_status: "Status",
    filter_path: "Path",
    search: "Search",
    no_hits: "No hits.",
    draft_empty: "No draft yet. Start an interview in the chat, e.g. “Record a new decision”.",
    draft_title: "Title",
    draft_folder: "Folder",
    draft_text: "Markdown",
    save: "Save",
    saved: "Saved",
    exists: "A note of this name exists.",
    overwrite: "Replace",
    keep: "Keep",
    repaired: "Repaired",
    missing: "Required field missing",
    lint: "Checks",
    lint_clean: "No findings.",
    draft_ready: "Draft ready: see “Draft”",
    fix_preview: "Fix preview",
  },
};

let lang = localStorage.getItem("mindnet.lang") || "de";

export function t(key) {
  return (TEXTS[lang] && TEXTS[lang][key]) || TEXTS.de[key] || key;
}

export function currentLang() {
  return lang;
}

export function setLang(next) {
  lang = next in TEXTS ? next : "de";
  localStorage.setItem("mindnet.lang", lang);
  applyTexts();
}

/// Fills every element marked with data-i18n (text) or data-i18n-placeholder.
export function applyTexts(root = document) {
  document.documentElement.lang = lang;
  for (const el of root.querySelectorAll("[data-i18n]")) {
    el.textContent = t(el.dataset.i18n);
  }
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
}

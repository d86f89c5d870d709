//! The chat as a user meets it, with no LLM configured: `POST /chat` as
//! JSON and as server-sent events on a real server over the demo vault
//! (use-m3, embedded Qdrant), the interview to a saved note, prompts
//! edited while the server runs, bad requests, and `mindnet chat` one-shot.

mod common;

use common::{Server, copy_dir, demo_vault, import_m3, mindnet};
use serde_json::{Value, json};
use std::io::Read;

fn served() -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), dir.path());
    import_m3(dir.path());
    let server = Server::start(dir.path(), &[]);
    server.wait_ready();
    (dir, server)
}

/// The events of a streamed answer: (name, data) in order.
fn stream(s: &Server, body: &Value) -> Vec<(String, Value)> {
    let mut r = reqwest::blocking::Client::new()
        .post(s.url("/chat"))
        .header("accept", "text/event-stream")
        .json(body)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let mut text = String::new();
    r.read_to_string(&mut text).unwrap();
    let mut events = Vec::new();
    for block in text.split("\n\n") {
        let mut name = String::new();
        let mut data = String::new();
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("event:") {
                name = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.trim_start());
            }
        }
        if !data.is_empty() {
            events.push((name, serde_json::from_str(&data).unwrap()));
        }
    }
    events
}

/// Every `[n]` of the answer names a source, and each citation points to
/// that source's note, section and chunk.
fn assert_cited(r: &Value) {
    let sources = r["sources"].as_array().unwrap();
    let citations = r["citations"].as_array().unwrap();
    assert!(!citations.is_empty(), "{r}");
    for c in citations {
        let n = c["n"].as_u64().unwrap();
        assert!(r["answer"].as_str().unwrap().contains(&format!("[{n}]")));
        let s = sources.iter().find(|s| s["n"] == n).unwrap();
        assert_eq!(c["chunk_id"], s["hit"]["chunk_id"]);
        assert_eq!(c["note_id"], s["hit"]["note_id"]);
        assert_eq!(c["section"], s["hit"]["section"]);
    }
    for s in sources {
        let b = &s["hit"]["score_breakdown"];
        let sum = b["semantic"].as_f64().unwrap()
            + b["edge_bonus"].as_f64().unwrap()
            + b["centrality"].as_f64().unwrap()
            + b["hop"].as_f64().unwrap()
            + b["walk"].as_f64().unwrap();
        assert!((sum - s["hit"]["score"].as_f64().unwrap()).abs() < 1e-9);
        assert!(!s["hit"]["reasons"].as_array().unwrap().is_empty());
    }
}

#[test]
fn answers_stream_with_route_mode_sources_and_citations() {
    let (dir, s) = served();
    let why = json!({"message": "Warum habe ich in die Softwareentwicklung gewechselt?"});

    // JSON: the whole answer.
    let (st, r) = s.post("/chat", &why);
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["strategy"], "why");
    assert_eq!(r["intent"], "why");
    assert_eq!(r["mode"]["kind"], "extractive");
    assert_eq!(r["route"]["question"], true);
    assert!(r["answer"].as_str().unwrap().starts_with("Kette: "), "{r}");
    assert!(
        r["causal"]["paths"]
            .as_array()
            .is_some_and(|p| !p.is_empty()),
        "{r}"
    );
    assert_cited(&r);

    // The same as events: meta, tokens, done; the tokens are the answer.
    let events = stream(&s, &why);
    assert_eq!(events.first().unwrap().0, "meta");
    assert_eq!(events.last().unwrap().0, "done");
    let meta = &events[0].1;
    let done = &events.last().unwrap().1;
    assert_eq!(meta["strategy"], "why");
    assert_eq!(meta["session"], done["session"]);
    assert_eq!(meta["sources"], done["sources"]);
    let tokens: String = events
        .iter()
        .filter(|(n, _)| n == "token")
        .map(|(_, d)| d["text"].as_str().unwrap())
        .collect();
    assert_eq!(tokens, done["answer"].as_str().unwrap());

    // A decision asks the strategic retrieval for values and principles.
    let (_, d) = s.post(
        "/chat",
        &json!({"message": "Soll ich das Jobangebot annehmen?"}),
    );
    assert_eq!(d["strategy"], "decision", "{d}");
    assert_eq!(d["route"]["by"], "pattern");
    assert!(
        d["sources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["injected"] == true
                && ["value", "principle"].contains(&s["hit"]["type"].as_str().unwrap())),
        "{d}"
    );

    // The answer is logged: the feedback of the answer and of a source.
    let qid = r["query_id"].as_str().unwrap();
    for node in [
        "generated_answer",
        r["sources"][0]["hit"]["chunk_id"].as_str().unwrap(),
    ] {
        let (st, f) = s.post(
            "/feedback",
            &json!({"query_id": qid, "node_id": node, "score": 4}),
        );
        assert_eq!(st, 200, "{f}");
    }

    // Bad requests are errors with a status, in both forms.
    for (body, status) in [
        (json!({"message": "  "}), 400),
        (json!({"message": "x", "k": 0}), 400),
        (json!({"message": "x", "session": "../../etc"}), 400),
        (json!({"message": "x", "strategy": "poetry"}), 400),
        (json!({"message": "x", "temperature": 2}), 422),
        (json!({"message": "x".repeat(40_000)}), 400),
    ] {
        let (st, e) = s.post("/chat", &body);
        assert_eq!(st, status, "{body} → {e}");
        assert!(e["error"]["message"].as_str().is_some());
        let st = reqwest::blocking::Client::new()
            .post(s.url("/chat"))
            .header("accept", "text/event-stream")
            .json(&body)
            .send()
            .unwrap()
            .status()
            .as_u16();
        assert_eq!(st, status, "streamed {body}");
    }
    drop(s);
    drop(dir);
}

#[test]
fn a_conversation_and_a_half_done_interview_survive_a_restart_of_the_server() {
    let (dir, s) = served();
    let (_, r) = s.post(
        "/chat",
        &json!({"message": "Neue Entscheidung festhalten: Umzug nach Köln"}),
    );
    let interview = r["session"].as_str().unwrap().to_string();
    let (_, r) = s.post(
        "/chat",
        &json!({"message": "Die Wohnung wurde zu klein.", "session": interview}),
    );
    assert!(r["answer"].as_str().unwrap().contains("2 von 5"), "{r}");
    let (_, q) = s.post(
        "/chat",
        &json!({"message": "Warum habe ich mich für Qdrant entschieden?", "session": "frage-1"}),
    );
    assert_eq!(q["session"], "frage-1");
    assert!(s.stop().success());
    let files: Vec<_> = std::fs::read_dir(dir.path().join(".mindnet/chat"))
        .unwrap()
        .collect();
    assert_eq!(files.len(), 2, "one file per session");

    let s = Server::start(dir.path(), &[]);
    s.wait_ready();
    // The interview goes on where it was: the third question.
    let (st, r) = s.post(
        "/chat",
        &json!({"message": "Wir ziehen nach Köln.", "session": interview}),
    );
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["strategy"], "interview", "{r}");
    assert!(r["answer"].as_str().unwrap().contains("3 von 5"), "{r}");
    let (st, r) = s.post(
        "/chat",
        &json!({"message": "Was war die Alternative?", "session": "frage-1"}),
    );
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["session"], "frage-1");
}

#[test]
fn an_interview_asks_the_schema_and_its_draft_is_saved_and_indexed() {
    let (dir, s) = served();
    let (_, r) = s.post(
        "/chat",
        &json!({"message": "Neue Entscheidung festhalten: Umzug nach Köln"}),
    );
    assert_eq!(r["strategy"], "interview", "{r}");
    assert_eq!(r["route"]["by"], "keywords");
    assert_eq!(r["route"]["type"], "decision");
    assert_eq!(r["mode"]["kind"], "interview");
    assert!(r["answer"].as_str().unwrap().contains("1 von 5"), "{r}");
    let session = r["session"].as_str().unwrap().to_string();
    // A question is never an interview, even with an object keyword.
    let (_, q) = s.post(
        "/chat",
        &json!({"message": "Welche Entscheidung habe ich zum Umzug getroffen?"}),
    );
    assert_ne!(q["strategy"], "interview");

    let answers = [
        "Die Wohnung wurde zu klein.",
        "Wir ziehen nach Köln.",
        "Näher an der Familie?",
        "-",
        "",
    ];
    let mut last = Value::Null;
    for a in answers {
        let (st, r) = s.post(
            "/chat",
            &json!({"message": if a.is_empty() { "-" } else { a }, "session": session}),
        );
        assert_eq!(st, 200, "{r}");
        assert_eq!(r["strategy"], "interview");
        last = r;
    }
    let draft = &last["draft"];
    assert_eq!(draft["complete"], true, "{last}");
    assert_eq!(draft["type"], "decision");
    assert_eq!(draft["title"], "Umzug nach Köln");
    assert!(draft["missing"].as_array().unwrap().is_empty(), "{draft}");
    let md = draft["markdown"].as_str().unwrap();
    for field in [
        "## Kontext",
        "## Entscheidung",
        "## Begründung",
        "## Alternativen",
        "## Folgen",
    ] {
        assert!(md.contains(field), "{md}");
    }
    // A `?` inside an answer stays an answer while the interview runs.
    assert!(md.contains("Näher an der Familie?"), "{md}");
    assert!(last["answer"].as_str().unwrap().contains("```markdown"));

    let save = json!({"title": "Umzug nach Köln", "text": md, "folder": "Entscheidungen"});
    let (st, saved) = s.post("/ingest/save", &save);
    assert_eq!(st, 200, "{saved}");
    let (st, _) = s.post("/ingest/save", &save);
    assert_eq!(st, 409);
    let id = saved["note_id"].as_str().unwrap();
    let (st, note) = s.get(&format!("/notes/{id}"));
    assert_eq!(st, 200);
    assert_eq!(note["note"]["type"], "decision");
    assert!(
        dir.path()
            .join("Entscheidungen/umzug-nach-koeln.md")
            .is_file()
    );

    // `abbrechen` ends an interview without a draft.
    let (_, r) = s.post("/chat", &json!({"message": "Neues Projekt anlegen"}));
    let session = r["session"].as_str().unwrap();
    let (_, r) = s.post(
        "/chat",
        &json!({"message": "abbrechen", "session": session}),
    );
    assert!(r["draft"].is_null());
    let (_, r) = s.post(
        "/chat",
        &json!({"message": "Was ist Qdrant?", "session": session}),
    );
    assert_ne!(r["strategy"], "interview");
}

#[test]
fn prompts_edited_while_the_server_runs_apply_to_the_next_answer() {
    let (dir, s) = served();
    let why = json!({"message": "Warum habe ich in die Softwareentwicklung gewechselt?"});
    let (_, before) = s.post("/chat", &why);
    assert!(before["answer"].as_str().unwrap().starts_with("Kette: "));
    let file = dir.path().join(".mindnet/config/prompts.yaml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let builtin = include_str!("../../../config/prompts.yaml");
    std::fs::write(
        &file,
        builtin.replace("chain: \"Kette\"", "chain: \"Ursachenkette\""),
    )
    .unwrap();
    let (_, after) = s.post("/chat", &why);
    assert!(
        after["answer"]
            .as_str()
            .unwrap()
            .starts_with("Ursachenkette: "),
        "{after}"
    );
    assert!(after["warnings"].as_array().unwrap().is_empty());
    // A broken file is reported; the last good prompts stay in use.
    std::fs::write(&file, "version: 1\nsystem: [unclosed\n").unwrap();
    let (st, broken) = s.post("/chat", &why);
    assert_eq!(st, 200);
    assert!(
        broken["answer"]
            .as_str()
            .unwrap()
            .starts_with("Ursachenkette: ")
    );
    let w = broken["warnings"][0].as_str().unwrap();
    assert!(w.contains("prompts.yaml") && w.contains("last good"), "{w}");
}

#[test]
fn chat_one_shot_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), dir.path());
    import_m3(dir.path());
    let v = dir.path().to_str().unwrap();
    let out = mindnet(&["chat", "--vault", v, "Was ist Qdrant?", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["mode"]["kind"], "extractive");
    assert_cited(&r);
    let out = mindnet(&[
        "chat",
        "--vault",
        v,
        "Warum habe ich in die Softwareentwicklung gewechselt?",
        "--explain",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("[WHY · intent why · extractive"), "{text}");
    assert!(
        text.contains("\n[1] ") && text.contains("semantic "),
        "{text}"
    );
    let err = mindnet(&["chat", "--vault", v, "x", "--strategy", "poetry"]);
    assert_eq!(err.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&err.stderr).contains("unknown strategy `poetry`"));
}

#[test]
fn with_a_real_llm_the_answer_streams_from_it_and_a_disconnect_cancels_it() {
    let Some(llama) = common::llama_server(
        "with_a_real_llm_the_answer_streams_from_it_and_a_disconnect_cancels_it",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), dir.path());
    import_m3(dir.path());
    let s = Server::start_with(
        dir.path(),
        &[],
        &[
            ("MINDNET_LLM_URL", &llama.url),
            ("MINDNET_LLM_MODEL", "smollm2"),
            ("MINDNET_LLM_TIMEOUT", "60"),
        ],
    );
    s.wait_ready();
    let events = stream(&s, &json!({"message": "Was ist Qdrant?", "k": 3}));
    let done = &events.last().unwrap().1;
    assert_eq!(done["mode"]["kind"], "llm", "{done}");
    assert_eq!(done["mode"]["provider"], "openai");
    // The server's name for the model (`SmolLM2…`), or the configured one
    // when no streamed chunk named it.
    assert!(
        done["mode"]["model"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("smollm2"),
        "{done}"
    );
    let tokens: Vec<&str> = events
        .iter()
        .filter(|(n, _)| n == "token")
        .map(|(_, d)| d["text"].as_str().unwrap())
        .collect();
    assert!(tokens.len() > 3, "{events:?}");
    assert_eq!(tokens.concat(), done["answer"].as_str().unwrap());
    assert_eq!(done["sources"].as_array().unwrap().len(), 3, "{done}");
    // The router asks the LLM when no rule matches; it names a strategy.
    let (_, r) = s.post(
        "/chat",
        &json!({"message": "Qdrant Vektoren lokal", "k": 2}),
    );
    assert_eq!(r["route"]["by"], "llm", "{r}");
    // `extractive: true` answers from the notes even so.
    let (_, e) = s.post(
        "/chat",
        &json!({"message": "Was ist Qdrant?", "extractive": true}),
    );
    assert_eq!(e["mode"]["kind"], "extractive");
    // An interview with an LLM: one draft from the template, healed.
    let (_, iv) = s.post(
        "/chat",
        &json!({"message": "Neue Entscheidung festhalten: Umzug"}),
    );
    assert_eq!(iv["mode"]["kind"], "llm");
    assert_eq!(iv["draft"]["type"], "decision", "{iv}");

    // A client that goes away mid-answer cancels the LLM request: the
    // server notices when it next writes to the client and closes the LLM's
    // connection, so the generation stops long before the answer's 600
    // tokens (about 50 were written after the disconnect here: the chain
    // of closed sockets takes about a second).
    let predicted = || -> u64 {
        let text = reqwest::blocking::get(format!("{}/metrics", llama.url))
            .unwrap()
            .text()
            .unwrap();
        text.lines()
            .find_map(|l| l.strip_prefix("llamacpp:tokens_predicted_total "))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no token count in /metrics: {text}")) as u64
    };
    let processing = || -> bool {
        let slots: Value = reqwest::blocking::get(format!("{}/slots", llama.url))
            .unwrap()
            .json()
            .unwrap();
        slots[0]["is_processing"] == true
    };
    let wait_for = |want: bool, what: &str| {
        let started = std::time::Instant::now();
        while processing() != want {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(120),
                "{what}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    wait_for(false, "the LLM is busy before the test");
    let before = predicted();
    let mut r = reqwest::blocking::Client::new()
        .post(s.url("/chat"))
        .header("accept", "text/event-stream")
        .json(&json!({"message": "Erzähle ausführlich alles über das Projekt Mindnet und seine Geschichte", "strategy": "fact"}))
        .send()
        .unwrap();
    let mut first = [0u8; 256];
    let _ = r.read(&mut first).unwrap();
    wait_for(true, "the LLM never started on the answer");
    drop(r);
    wait_for(false, "the LLM still writes for a client that left");
    let written = predicted() - before;
    assert!(
        written < 200,
        "the LLM wrote {written} tokens for a client that left"
    );
}

#[test]
fn the_repl_keeps_the_conversation_and_saves_the_interview_draft() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), dir.path());
    import_m3(dir.path());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args(["chat", "--vault", dir.path().to_str().unwrap()])
        .env_remove("MINDNET_LLM_URL")
        .env_remove("MINDNET_OLLAMA_URL")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let script = "Was ist Qdrant?\n/quellen\nNeuer Wert festhalten: Geduld\nAbwarten können, wenn es zählt.\n/save Werte\n/save Werte\n/exit\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("[FACT"), "{stdout}");
    assert!(
        stdout.contains("semantic "),
        "the sources with their breakdown: {stdout}"
    );
    assert!(stdout.contains("[INTERVIEW value"), "{stdout}");
    assert!(
        stdout.contains("gespeichert: Werte/geduld.md"),
        "{stdout}\n{stderr}"
    );
    // The second /save finds the file and says how to replace it.
    assert!(stderr.contains("--overwrite"), "{stderr}");
    let note = std::fs::read_to_string(dir.path().join("Werte/geduld.md")).unwrap();
    assert!(
        note.starts_with("---\ntype: value\ntitle: Geduld\n"),
        "{note}"
    );
    assert!(
        note.contains("## Bedeutung\n\nAbwarten können, wenn es zählt."),
        "{note}"
    );
}

//! `mindnet serve` over real HTTP: a spawned server on a free loopback port,
//! the real use-m3 model and the embedded Qdrant index of a copy of the demo
//! vault. Every endpoint, the error codes, the security checks, the watcher
//! and the routing of CLI commands through the server.

mod common;

use common::{Server, copy_dir, demo_vault, dry_run, import_m3, mindnet};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

fn served_vault() -> (tempfile::TempDir, Server) {
    served_with(&["--body-limit", "65536"])
}

/// A copy of the demo vault, imported and served with these flags, ready.
fn served_with(flags: &[&str]) -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), dir.path());
    import_m3(dir.path());
    let server = Server::start(dir.path(), flags);
    server.wait_ready();
    (dir, server)
}

/// One raw HTTP/1.1 request, so the Host header is exactly what we say.
fn raw(addr: &str, request: &str) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    // A server may answer and close before it read everything (a body
    // over the limit): what it answered is read all the same.
    let _ = s.write_all(request.as_bytes());
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    let status = out
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, out)
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

#[test]
fn every_endpoint_answers_and_errors_have_codes() {
    let (_dir, s) = served_vault();

    let (st, h) = s.get("/health");
    assert_eq!((st, h["status"].as_str()), (200, Some("ok")));
    let (st, status) = s.get("/status");
    assert_eq!(st, 200);
    assert_eq!(status["model"], "use-m3");
    assert!(status["notes"].as_u64().unwrap() > 30);

    // One hit per note by default, the note's other sections under it.
    let (st, q) = s.post(
        "/query",
        &json!({"text": "Warum habe ich mich für Qdrant entschieden?"}),
    );
    assert_eq!(st, 200, "{q}");
    let hits = q["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    let notes: HashSet<&str> = hits
        .iter()
        .map(|h| h["note_id"].as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), hits.len(), "one hit per note");
    assert!(hits[0]["title"].as_str().unwrap().contains("Qdrant"), "{q}");
    let b = &hits[0]["score_breakdown"];
    let sum = b["semantic"].as_f64().unwrap()
        + b["edge_bonus"].as_f64().unwrap()
        + b["centrality"].as_f64().unwrap()
        + b["hop"].as_f64().unwrap()
        + b["walk"].as_f64().unwrap();
    assert!((sum - hits[0]["score"].as_f64().unwrap()).abs() < 1e-9);
    // The raw chunk list may hold a note several times.
    let (_, raw_chunks) = s.post(
        "/query",
        &json!({"text": "Warum habe ich mich für Qdrant entschieden?", "chunks": true, "k": 20}),
    );
    let chunk_notes: Vec<&str> = raw_chunks["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["note_id"].as_str().unwrap())
        .collect();
    let distinct: HashSet<&&str> = chunk_notes.iter().collect();
    assert!(distinct.len() < chunk_notes.len(), "{raw_chunks}");

    // A causal question: the chain and the subgraph.
    let (st, a) = s.post(
        "/ask",
        &json!({"question": "Warum habe ich in die Softwareentwicklung gewechselt?"}),
    );
    assert_eq!(st, 200, "{a}");
    assert_eq!(a["intent"], "why");
    assert!(!a["paths"].as_array().unwrap().is_empty(), "{a}");
    assert!(!a["subgraph"]["nodes"].as_array().unwrap().is_empty());

    // Feedback on a returned hit; refusals of unknown ids and scores.
    let qid = q["query_id"].as_str().unwrap();
    let hit = hits[0]["chunk_id"].as_str().unwrap();
    let (st, fb) = s.post(
        "/feedback",
        &json!({"query_id": qid, "node_id": hit, "score": 5}),
    );
    assert_eq!(st, 200, "{fb}");
    let (st, e) = s.post(
        "/feedback",
        &json!({"query_id": "nope", "node_id": hit, "score": 5}),
    );
    assert_eq!((st, code(&e)), (404, "not_found"));
    let (st, e) = s.post(
        "/feedback",
        &json!({"query_id": qid, "node_id": hit, "score": 9}),
    );
    assert_eq!((st, code(&e)), (422, "unprocessable"));

    // A note, by id and by title; its edges in and out.
    let id = hits[0]["note_id"].as_str().unwrap();
    let (st, n) = s.get(&format!("/notes/{id}"));
    assert_eq!(st, 200, "{n}");
    assert_eq!(n["note"]["note_id"], id);
    assert!(!n["chunks"].as_array().unwrap().is_empty());
    let (st, n2) = s.get("/notes/Wechsel%20in%20die%20Softwareentwicklung");
    assert_eq!(st, 200, "{n2}");
    assert!(!n2["edges_out"].as_array().unwrap().is_empty(), "{n2}");
    let (st, e) = s.get("/notes/gibt-es-nicht");
    assert_eq!((st, code(&e)), (404, "not_found"));

    // The neighbourhood for a graph view.
    let (st, g) = s.get("/graph/neighbors?note=Wechsel%20in%20die%20Softwareentwicklung&hops=2");
    assert_eq!(st, 200, "{g}");
    assert!(g["nodes"].as_array().unwrap().len() > 2, "{g}");
    assert!(!g["edges"].as_array().unwrap().is_empty());
    let (st, g1) =
        s.get("/graph/neighbors?note=Wechsel%20in%20die%20Softwareentwicklung&kinds=caused_by");
    assert_eq!(st, 200);
    // The filter holds for the edge read either way (`caused_by` from the
    // effect is `resulted_in` as stored by the cause).
    let e1 = g1["edges"].as_array().unwrap();
    assert!(!e1.is_empty());
    assert!(
        e1.iter()
            .all(|e| e["kind"] == "caused_by" || e["kind"] == "resulted_in"),
        "{g1}"
    );
    let (st, e) = s.get("/graph/neighbors?note=Wechsel%20in%20die%20Softwareentwicklung&hops=9");
    assert_eq!((st, code(&e)), (400, "bad_request"));
    let (st, e) = s.get("/graph/neighbors?hops=1");
    assert_eq!((st, code(&e)), (400, "bad_request"));

    // A causal chain from the index, and the linter on the files.
    let (st, c) = s.post(
        "/chain",
        &json!({"note": "Wechsel in die Softwareentwicklung", "direction": "backward", "hops": 2}),
    );
    assert_eq!(st, 200, "{c}");
    assert!(
        c["causes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["title"] == "Erschöpfung im Frühjahr 2023"),
        "{c}"
    );
    let (st, e) = s.post("/chain", &json!({"note": "Gibt es nicht"}));
    assert_eq!((st, code(&e)), (404, "not_found"));
    let (st, l) = s.post("/lint", &json!({"severity": "warning"}));
    assert_eq!(st, 200, "{l}");
    assert!(l["notes"].as_u64().unwrap() > 30);
    assert!(
        l["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["severity"] != "recommendation")
    );
    let (st, sy) = s.post("/sync", &json!({"paths": ["Profil.md"]}));
    assert_eq!(st, 200, "{sy}");
    let (st, e) = s.post("/sync", &json!({"paths": ["../x.md"]}));
    assert_eq!((st, code(&e)), (400, "bad_request"));

    // Link suggestions for a draft.
    let (st, an) = s.post(
        "/ingest/analyze",
        &json!({"text": "Heute habe ich die Vektordatenbank Qdrant mit BM25 kombiniert.", "type": "experience"}),
    );
    assert_eq!(st, 200, "{an}");
    let sugg = an["suggestions"].as_array().unwrap();
    assert!(!sugg.is_empty(), "{an}");
    assert!(
        sugg.iter()
            .all(|x| x["link"].as_str().unwrap().starts_with("[["))
    );

    // Malformed, wrong shape, unknown endpoint, too large.
    let (st, e) = raw(
        &s.addr,
        &format!(
            "POST /query HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{{oops",
            s.addr
        ),
    );
    assert_eq!(st, 400, "{e}");
    assert!(e.contains("\"code\":\"bad_request\""), "{e}");
    let (st, e) = s.post("/query", &json!({"k": 3}));
    assert_eq!((st, code(&e)), (422, "unprocessable"));
    let (st, e) = s.post("/query", &json!({"text": "x", "k": 100000}));
    assert_eq!((st, code(&e)), (400, "bad_request"));
    let (st, e) = s.get("/nothing/here");
    assert_eq!((st, code(&e)), (404, "not_found"));
    let big = "a".repeat(70_000);
    let (st, e) = s.post("/query", &json!({ "text": big }));
    assert_eq!((st, code(&e)), (413, "payload_too_large"));

    // The OpenAPI document names every endpoint.
    let (st, doc) = s.get("/openapi.json");
    assert_eq!(st, 200);
    for p in [
        "/query",
        "/ask",
        "/feedback",
        "/notes/{id}",
        "/graph/neighbors",
        "/status",
        "/health",
        "/ingest/analyze",
        "/ingest/save",
    ] {
        assert!(doc["paths"].get(p).is_some(), "openapi lacks {p}");
    }
    assert!(doc["components"]["schemas"].get("QueryRequest").is_some());
}

#[test]
fn foreign_hosts_and_origins_are_refused_and_tokens_checked() {
    let (_dir, s) = served_with(&["--token", "s3cret", "--no-watch"]);
    let get = |host: &str, extra: &str| {
        raw(
            &s.addr,
            &format!("GET /status HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n"),
        )
    };
    let auth = "Authorization: Bearer s3cret\r\n";
    assert_eq!(get(&s.addr, auth).0, 200);
    assert_eq!(
        get(
            &format!("localhost:{}", s.addr.split(':').nth(1).unwrap()),
            auth
        )
        .0,
        200
    );
    let (st, body) = get("evil.example", auth);
    assert_eq!(st, 403, "{body}");
    assert!(body.contains("DNS rebinding"));
    let (st, body) = get(&s.addr, "");
    assert_eq!(st, 401, "{body}");
    assert_eq!(get(&s.addr, "Authorization: Bearer wrong\r\n").0, 401);
    let (st, body) = get(&s.addr, &format!("{auth}Origin: http://evil.example\r\n"));
    assert_eq!(st, 403, "{body}");
    // /health needs no token.
    let (st, _) = raw(
        &s.addr,
        &format!(
            "GET /health HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            s.addr
        ),
    );
    assert_eq!(st, 200);
}

/// The headers a browser needs, on the answer to `request` (raw HTTP).
fn assert_browser_headers(addr: &str, request: &str, asset: bool) {
    let (status, answer) = raw(addr, request);
    let head = answer
        .split("\r\n\r\n")
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let line = request.lines().next().unwrap_or("");
    assert!(status > 0, "{line}: no answer");
    assert!(
        head.contains("\r\nx-content-type-options: nosniff"),
        "{line}: {head}"
    );
    assert!(head.contains("frame-ancestors 'none'"), "{line}: {head}");
    assert!(head.contains("\r\nx-frame-options: deny"), "{line}: {head}");
    if !asset {
        assert!(
            head.contains("\r\ncache-control: no-store"),
            "{line}: {head}"
        );
    }
}

#[test]
fn every_route_answers_with_the_headers_a_browser_needs() {
    let (_dir, s) = served_with(&["--token", "s3cret", "--no-watch"]);
    let (st, doc) = {
        let r = reqwest::blocking::Client::new()
            .get(s.url("/openapi.json"))
            .bearer_auth("s3cret")
            .send()
            .unwrap();
        (r.status().as_u16(), r.json::<Value>().unwrap())
    };
    assert_eq!(st, 200);
    let request = |method: &str, path: &str, auth: bool, body: &str| {
        format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n{}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            s.addr,
            if auth {
                "Authorization: Bearer s3cret\r\n"
            } else {
                ""
            },
            body.len()
        )
    };
    // Every route of the API, with the token: a body of the wrong shape
    // answers 422 before anything runs, the GETs answer their data.
    let mut routes = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        let path = path.replace("{id}", "Qdrant").replace("{key}", "Qdrant");
        for method in ops.as_object().unwrap().keys() {
            let body = if method == "post" {
                r#"{"no_such_field": 1}"#
            } else {
                ""
            };
            let m = method.to_ascii_uppercase();
            assert_browser_headers(&s.addr, &request(&m, &path, true, body), false);
            routes += 1;
        }
    }
    assert!(routes >= 17, "{routes} routes");
    // A query and a note: answers that hold note text.
    let q = r#"{"text": "Warum habe ich mich für Qdrant entschieden?"}"#;
    assert_browser_headers(&s.addr, &request("POST", "/query", true, q), false);
    assert_browser_headers(&s.addr, &request("GET", "/notes/Qdrant", true, ""), false);
    // Refusals, the UI, the MCP endpoint and what is not there.
    assert_browser_headers(&s.addr, &request("GET", "/status", false, ""), false);
    assert_browser_headers(&s.addr, &request("GET", "/nowhere", true, ""), false);
    let big = format!(r#"{{"text": "{}"}}"#, "x".repeat(3 << 19));
    assert_browser_headers(&s.addr, &request("POST", "/query", true, &big), false);
    assert_browser_headers(&s.addr, &request("POST", "/mcp", true, "{}"), false);
    for asset in ["/", "/ui/app.js", "/ui/app.css"] {
        assert_browser_headers(&s.addr, &request("GET", asset, false, ""), true);
    }
}

#[test]
fn ready_is_503_until_the_index_has_opened_and_health_agrees() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&demo_vault(), dir.path());
    import_m3(dir.path());
    let s = Server::start(dir.path(), &["--no-watch"]);
    // From the first moment /health answers 200 and says whether the index
    // is open; /ready is 503 until it is, 200 after. (Asked first: the
    // index only ever goes from opening to open.)
    let started = Instant::now();
    let mut waited = 0;
    loop {
        let (ready, body) = s.get("/ready");
        let (health_status, health) = s.get("/health");
        assert_eq!(health_status, 200);
        if ready == 200 {
            assert_eq!(health["status"], "ok", "{health}");
            break;
        }
        assert_eq!(
            (ready, body["error"]["code"].as_str()),
            (503, Some("unavailable")),
            "{body}"
        );
        assert!(
            ["opening", "ok"].contains(&health["status"].as_str().unwrap_or("")),
            "{health}"
        );
        // A 503 says when to ask again; an operation that reads only the
        // files and the logs answers while the index opens.
        let r = reqwest::blocking::get(s.url("/ready")).unwrap();
        if r.status().as_u16() == 503 {
            assert_eq!(r.headers()["retry-after"], "2");
        }
        let (history, body) = s.get("/history");
        assert_eq!(history, 200, "{body}");
        waited += 1;
        assert!(started.elapsed() < Duration::from_secs(120), "never ready");
        std::thread::sleep(Duration::from_millis(5));
    }
    println!("/ready was 503 {waited} times before the index opened");
    let (ready, body) = s.get("/ready");
    assert_eq!((ready, body["status"].as_str()), (200, Some("ok")));
}

#[test]
fn a_public_address_without_a_token_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args([
            "serve",
            dir.path().to_str().unwrap(),
            "--listen",
            "0.0.0.0:0",
        ])
        .env_remove("MINDNET_API_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("without a token"), "{err}");
}

#[test]
fn save_writes_inside_the_vault_only_and_indexes_the_note() {
    let (dir, s) = served_vault();
    let v = dir.path();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), v.join("Ausgang")).unwrap();
    let files_before = count_files(outside.path());

    let (st, r) = s.post(
        "/ingest/save",
        &json!({"title": "Zitronenbaum im Winter", "text": "Der Zitronenbaum überwintert hell und kühl bei acht Grad.", "type": "experience", "tags": ["garten"], "folder": "Garten/Pflanzen"}),
    );
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["path"], "Garten/Pflanzen/zitronenbaum-im-winter.md");
    assert_eq!(r["created"], true);
    let written =
        std::fs::read_to_string(v.join("Garten/Pflanzen/zitronenbaum-im-winter.md")).unwrap();
    assert!(
        written.starts_with("---\ntitle: \"Zitronenbaum im Winter\"\ntype: \"experience\"\n"),
        "{written}"
    );
    // Indexed before the response: found at once.
    let (_, q) = s.post(
        "/query",
        &json!({"text": "Zitronenbaum überwintern acht Grad"}),
    );
    assert_eq!(q["hits"][0]["note_id"], r["note_id"], "{q}");

    let refused = [
        (json!({"title": "x", "text": "t", "folder": "../x"}), 422),
        (json!({"title": "x", "text": "t", "folder": "/etc"}), 422),
        (
            json!({"title": "x", "text": "t", "folder": "%2e%2e/x"}),
            422,
        ),
        (json!({"title": "x", "text": "t", "folder": "Ausgang"}), 422),
        (
            json!({"title": "x", "text": "t", "folder": "Ausgang/tiefer"}),
            422,
        ),
        (json!({"title": "???", "text": "t"}), 422),
        (
            json!({"title": "../../x", "text": "t", "folder": ".obsidian"}),
            422,
        ),
        (
            json!({"title": "Zitronenbaum im Winter", "text": "anders", "folder": "Garten/Pflanzen"}),
            409,
        ),
    ];
    for (body, want) in refused {
        let (st, e) = s.post("/ingest/save", &body);
        assert_eq!(st, want, "{body} → {e}");
        assert!(e["error"]["message"].as_str().is_some());
    }
    assert_eq!(
        count_files(outside.path()),
        files_before,
        "nothing outside the vault"
    );
    assert!(!Path::new("/etc/x.md").exists());
    let again =
        std::fs::read_to_string(v.join("Garten/Pflanzen/zitronenbaum-im-winter.md")).unwrap();
    assert_eq!(again, written, "an existing note is not overwritten");
    // With overwrite it is.
    let (st, r2) = s.post(
        "/ingest/save",
        &json!({"title": "Zitronenbaum im Winter", "text": "Neu: hell, kühl, wenig Wasser.", "folder": "Garten/Pflanzen", "overwrite": true}),
    );
    assert_eq!((st, &r2["created"]), (200, &json!(false)), "{r2}");
}

fn count_files(dir: &Path) -> usize {
    walk(dir).len()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The first hit's title for a query, polled until `want(title)` holds.
fn eventually(s: &Server, text: &str, want: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let (_, q) = s.post("/query", &json!({ "text": text, "k": 5 }));
        if want(&q) {
            return q;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never true for {text:?}: {q}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn titles(q: &Value) -> Vec<String> {
    q["hits"]
        .as_array()
        .map(|h| {
            h.iter()
                .map(|x| x["title"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_watcher_finds_new_notes_forgets_old_text_and_deletes() {
    let (dir, s) = served_vault();
    s.wait_log("watching the vault");
    let note = dir.path().join("Journal/Kanufahrt.md");
    std::fs::write(
        &note,
        "# Kanufahrt\n\nMit dem Kanu auf der Altmühl, Biber gesehen, Sonnenbrand.\n",
    )
    .unwrap();
    let found = |q: &Value| titles(q).iter().any(|t| t == "Kanufahrt");
    eventually(&s, "Kanu Altmühl Biber", found);

    std::fs::write(
        &note,
        "# Kanufahrt\n\nRegen den ganzen Tag, Zelt nass, früh abgebrochen.\n",
    )
    .unwrap();
    let started = Instant::now();
    while !s.get("/notes/Kanufahrt").1["note"]["text"]
        .as_str()
        .is_some_and(|t| t.contains("Zelt"))
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the edit was never indexed"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let (_, q) = s.post(
        "/query",
        &json!({"text": "Zelt nass Regen abgebrochen", "k": 5}),
    );
    assert!(found(&q), "{q}");
    let (_, q) = s.post(
        "/query",
        &json!({"text": "Biber Sonnenbrand Altmühl", "chunks": true, "k": 50}),
    );
    assert!(
        q["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| !h["text"].as_str().unwrap().contains("Biber")),
        "the old text is gone: {q}"
    );

    // A note that appears resolves the links other notes already had to it
    // (they are relinked, though only the new file changed).
    let trip = dir.path().join("Journal/Ausflug.md");
    std::fs::write(&trip, "# Ausflug\n\nMit dem [[Paddelboot]] zum See.\n").unwrap();
    let linked = |s: &Server| -> Option<String> {
        let (st, n) = s.get("/notes/Ausflug");
        if st != 200 {
            return None;
        }
        n["edges_out"]
            .as_array()?
            .iter()
            .find(|e| e["kind"] == "references")
            .map(|e| {
                format!(
                    "{}:{}",
                    e["resolved"],
                    e["target_id"].as_str().unwrap_or("")
                )
            })
    };
    let started = Instant::now();
    while linked(&s).is_none_or(|l| !l.starts_with("false:")) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "Ausflug never indexed"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    std::fs::write(
        dir.path().join("Paddelboot.md"),
        "# Paddelboot\n\nZwei Sitze, rot.\n",
    )
    .unwrap();
    let started = Instant::now();
    loop {
        let (st, boat) = s.get("/notes/Paddelboot");
        if st == 200 {
            let id = boat["note"]["note_id"].as_str().unwrap().to_string();
            if linked(&s).is_some_and(|l| l == format!("true:{id}")) {
                break;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the link was never resolved: {:?}",
            linked(&s)
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    std::fs::remove_file(&note).unwrap();
    eventually(&s, "Kanufahrt Zelt Regen", |q| !found(q));
    let (st, _) = s.get("/notes/Kanufahrt");
    assert_eq!(st, 404);
}

#[test]
fn cli_commands_go_through_a_running_server() {
    let (dir, s) = served_vault();
    let v = dir.path().to_str().unwrap();
    let t = Instant::now();
    let out = mindnet(&["query", "--vault", v, "--json", "Warum Qdrant?"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!r["hits"].as_array().unwrap().is_empty());
    assert!(t.elapsed() < Duration::from_secs(20));
    let out = mindnet(&["status", v, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let st: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["model"], "use-m3");
    let out = mindnet(&[
        "ask",
        "--vault",
        v,
        "Warum habe ich in die Softwareentwicklung gewechselt?",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("⟵caused_by—"));
    let out = mindnet(&["import", v]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A command without an endpoint fails at once and names the server.
    let t = Instant::now();
    let out = mindnet(&["check", v]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mindnet serve") && err.contains(&s.addr),
        "{err}"
    );
    assert!(t.elapsed() < Duration::from_secs(10));
    // A second server on the same index is refused.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args(["serve", v, "--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already served"));
    // SIGTERM: a clean exit, and the index is free again.
    let status = s.stop();
    assert!(status.success(), "{status:?}");
    assert!(!dir.path().join(".mindnet/server.json").exists());
    let out = mindnet(&["check", v]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `GET /tags` (the operation added to prove the table: one app function,
/// one declaration) answers over HTTP, is in the OpenAPI document, and the
/// CLI gets the same answer through the server, through `mindnet call`, and
/// in its own process once the server has stopped.
#[test]
fn tags_answer_over_http_and_the_cli_the_same() {
    let (dir, s) = served_vault();
    let v = dir.path().to_str().unwrap();
    // What the notes say, read by the dry run (the parser, not the index).
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    for n in dry_run(dir.path(), &[]).notes() {
        let tags: HashSet<&str> = n["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        for t in tags {
            *want.entry(t.to_string()).or_default() += 1;
        }
    }
    assert!(want["mindnet"] > 5, "{want:?}");

    let (st, tags) = s.get("/tags");
    assert_eq!(st, 200, "{tags}");
    let list = tags["tags"].as_array().unwrap();
    let got: BTreeMap<String, u64> = list
        .iter()
        .map(|t| {
            (
                t["tag"].as_str().unwrap().to_string(),
                t["notes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want);
    let counts: Vec<u64> = list.iter().map(|t| t["notes"].as_u64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");

    let (st, some) = s.get("/tags?prefix=GE");
    assert_eq!(st, 200, "{some}");
    let names: Vec<&str> = some["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tag"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = want
        .keys()
        .filter(|t| t.starts_with("ge"))
        .map(String::as_str)
        .collect();
    assert!(!names.is_empty());
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, expected);
    let (st, e) = s.get("/tags?sort=name");
    assert_eq!((st, code(&e)), (400, "bad_request"), "{e}");

    let (_, doc) = s.get("/openapi.json");
    assert_eq!(doc["paths"]["/tags"]["get"]["operationId"], "tags");

    let out = mindnet(&["tags", "--vault", v, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), tags);
    let out = mindnet(&["call", "tags", r#"{"prefix": "GE"}"#, "--vault", v]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), some);
    // A path parameter with a `/` travels as path segments.
    let (st, note) = s.get("/notes/Journal/2023-03-14");
    assert_eq!(st, 200, "{note}");
    let out = mindnet(&[
        "call",
        "note",
        r#"{"id": "Journal/2023-03-14"}"#,
        "--vault",
        v,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), note);
    let out = mindnet(&["call", "tag", "--vault", v]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no operation `tag`") && err.contains("tags"),
        "{err}"
    );

    // Without the server, the same answer from this process.
    assert!(s.stop().success());
    let out = mindnet(&["tags", "--vault", v, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), tags);
    let out = mindnet(&["tags", "GE", "--vault", v]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().count() == names.len() && text.contains(&format!("#{}", names[0])),
        "{text}"
    );
}

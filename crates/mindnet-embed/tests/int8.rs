//! e5-small with int8 linear layers against the same model in f32, on real
//! paragraphs (hotpotqa-100's notes). Needs the real weights: they are
//! fetched into the model cache on first run.

use mindnet_embed::int8::Kernel;
use mindnet_embed::{Embedder, e5::E5Small, fetch, models};

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

/// The bodies of the first `count` notes of the vault, by file name.
fn paragraphs(count: usize) -> Vec<String> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/hotpotqa-100/vault"
    );
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("hotpotqa vault")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    paths.sort();
    paths
        .iter()
        .take(count)
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("note");
            // Past the frontmatter.
            match text
                .strip_prefix("---\n")
                .and_then(|t| t.split_once("\n---\n"))
            {
                Some((_, body)) => body.to_string(),
                None => text,
            }
        })
        .collect()
}

/// Every vector within cosine 0.99 of f32's, on the VNNI kernel where the
/// CPU has it, else on the reference loops (fewer texts: they are slow).
#[test]
fn int8_vectors_stay_within_cosine_099_of_f32() {
    let dir = fetch::ensure(
        &mindnet_app::settings::embed_settings(),
        models::E5_SMALL,
        &|m| eprintln!("{m}"),
    )
    .expect("e5-small weights");
    let f32_model = E5Small::load(&dir).unwrap();
    let (kernel, count) = match Kernel::detect() {
        Some(k) => (k, 12),
        None => (Kernel::Portable, 3),
    };
    let int8_model = E5Small::load(&dir).unwrap().int8(kernel);
    let texts = paragraphs(count);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let want = f32_model.embed_passages(&refs).unwrap();
    let got = int8_model.embed_passages(&refs).unwrap();
    let cosines: Vec<f32> = want.iter().zip(&got).map(|(a, b)| cosine(a, b)).collect();
    let min = cosines.iter().copied().fold(1.0f32, f32::min);
    let mean = cosines.iter().sum::<f32>() / cosines.len() as f32;
    eprintln!("{kernel:?}: {count} paragraphs, cosine to f32 min {min:.4}, mean {mean:.4}");
    assert!(min >= 0.99, "min cosine {min} (mean {mean})");
    let q = "Which magazine was started first?";
    let c = cosine(
        &f32_model.embed_query(q).unwrap(),
        &int8_model.embed_query(q).unwrap(),
    );
    assert!(c >= 0.99, "query cosine {c}");
}

/// What the child process of `the_environment_chooses_the_path` prints:
/// the kernel `MINDNET_EMBED_INT8` chose, and the vectors of two sentences
/// embedded through `open`, as an import embeds them.
#[test]
#[ignore = "run by the_environment_chooses_the_path, in a process of its own"]
fn embed_as_the_environment_says() {
    // The environment read as every command reads it.
    let settings = mindnet_app::settings::embed_settings();
    let model = mindnet_embed::open("e5-small", &settings, &|m| eprintln!("{m}")).unwrap();
    let texts = [
        "Die Wärmepumpe heizt das Haus im Winter.",
        "Der Stromverbrauch stieg im Januar.",
    ];
    let vectors = model.embed_passages(&texts).unwrap();
    println!("kernel: {:?}", mindnet_embed::int8::chosen(settings.int8));
    println!("vectors: {}", serde_json::to_string(&vectors).unwrap());
}

/// `MINDNET_EMBED_INT8` selects the path an import embeds with: `off` the
/// f32 products, `portable` the reference loops, which any CPU runs and
/// which give the VNNI kernel's vectors bit for bit. Each runs in a child
/// process, as a user sets the variable.
#[test]
fn the_environment_chooses_the_path() {
    let run = |value: &str| -> (String, Vec<Vec<f32>>) {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "embed_as_the_environment_says"])
            .args(["--ignored", "--nocapture", "--test-threads=1"])
            .env("MINDNET_EMBED_INT8", value)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{value}: {stdout}");
        // The test harness writes its own words before the first line.
        let line = |prefix: &str| {
            stdout
                .lines()
                .find_map(|l| l.split_once(prefix).map(|(_, value)| value))
                .unwrap_or_else(|| panic!("{value}: no {prefix} in {stdout}"))
                .to_string()
        };
        let vectors = serde_json::from_str(&line("vectors: ")).unwrap();
        (line("kernel: "), vectors)
    };
    let (kernel, f32_vectors) = run("off");
    assert_eq!(kernel, "None");
    let (kernel, portable) = run("portable");
    assert_eq!(kernel, "Some(Portable)");
    for (a, b) in f32_vectors.iter().zip(&portable) {
        assert!(
            cosine(a, b) >= 0.99,
            "portable against f32: {}",
            cosine(a, b)
        );
    }
    let (kernel, detected) = run("");
    match Kernel::detect() {
        Some(k) => {
            assert_eq!(kernel, format!("Some({k:?})"));
            assert_eq!(detected, portable, "VNNI and the reference loops differ");
        }
        None => assert_eq!(detected, f32_vectors),
    }
}

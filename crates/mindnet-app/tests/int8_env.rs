//! `MINDNET_EMBED_INT8`, as every command reads it (`Settings`), picks the
//! products e5-small embeds with: the embedder's own tests
//! (`mindnet-embed/tests/int8.rs`) hold the kernels equal; this holds the
//! variable to its meaning.

use mindnet_app::{Settings, SettingsInput};
use mindnet_embed::int8::Kernel;

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

/// What the child process of `the_environment_chooses_the_path` prints:
/// the kernel `MINDNET_EMBED_INT8` chose, and the vectors of two sentences
/// embedded through `open`, as an import embeds them.
#[test]
#[ignore = "run by the_environment_chooses_the_path, in a process of its own"]
fn embed_as_the_environment_says() {
    // The environment read as every command reads it.
    let settings = Settings::resolve(SettingsInput::default()).embed;
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

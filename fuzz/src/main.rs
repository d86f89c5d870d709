//! `mindnet-afl TARGET`: one afl fuzz loop over the named target of
//! `mindnet-fuzz` (note, frontmatter, links, config, draft, http, mcp).
//!
//! `mindnet-afl TARGET --time FILE…` runs the files through the target
//! without afl and prints the slowest, to find what holds the fuzzer back.

use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_default();
    let Some(target) = mindnet_fuzz::Target::from_name(&name) else {
        let names: Vec<&str> = mindnet_fuzz::Target::ALL.iter().map(|t| t.name()).collect();
        eprintln!("usage: mindnet-afl <{}> [--time FILE…]", names.join("|"));
        std::process::exit(2);
    };
    if args.next().as_deref() == Some("--time") {
        let started = Instant::now();
        mindnet_fuzz::warm_up();
        eprintln!("warm-up: {:?}", started.elapsed());
        return time(target, args.collect());
    }
    // No warm-up here: afl's fork server starts inside `fuzz!`, and the
    // threads of an index opened before it would be missing in every
    // child. The first input of a child builds it.
    afl::fuzz!(|data: &[u8]| target.run(data));
}

fn time(target: mindnet_fuzz::Target, files: Vec<String>) {
    let mut spent: Vec<(Duration, String)> = Vec::new();
    for file in files {
        let Ok(data) = std::fs::read(&file) else {
            continue;
        };
        let start = Instant::now();
        target.run(&data);
        spent.push((start.elapsed(), file));
    }
    let total: Duration = spent.iter().map(|s| s.0).sum();
    let n = spent.len().max(1) as u32;
    println!(
        "{} inputs, {:?} in all, {:?} each",
        spent.len(),
        total,
        total / n
    );
    spent.sort();
    for (d, file) in spent.iter().rev().take(10) {
        println!("{d:>12.3?}  {file}");
    }
}

//! Replays inputs through a fuzz target without afl, to see a crash:
//! `cargo run -p mindnet-fuzz --example replay -- <target> <file>…`

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_default();
    let Some(target) = mindnet_fuzz::Target::from_name(&name) else {
        let names: Vec<&str> = mindnet_fuzz::Target::ALL.iter().map(|t| t.name()).collect();
        eprintln!("usage: replay <{}> <file>…", names.join("|"));
        std::process::exit(2);
    };
    mindnet_fuzz::warm_up();
    for file in args {
        let data = std::fs::read(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
        target.run(&data);
        println!("{file}: passes");
    }
}

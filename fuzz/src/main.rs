//! `mindnet-afl TARGET`: one afl fuzz loop over the named target of
//! `mindnet-fuzz` (note, frontmatter, links, config, draft, http, mcp).

fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(target) = mindnet_fuzz::Target::from_name(&name) else {
        let names: Vec<&str> = mindnet_fuzz::Target::ALL.iter().map(|t| t.name()).collect();
        eprintln!("usage: mindnet-afl <{}>", names.join("|"));
        std::process::exit(2);
    };
    mindnet_fuzz::warm_up();
    afl::fuzz!(|data: &[u8]| target.run(data));
}

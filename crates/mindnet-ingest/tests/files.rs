//! Files that change under the importer: gone, or rewritten, between the
//! scan that lists them and the read. A gone file is a warning that names
//! it (the index keeps its note until a scan no longer lists it); a
//! rewritten one is read as it is now.

use mindnet_ingest::scan::scan_vault;
use mindnet_ingest::source::{DEFAULT_MAX_NOTE_BYTES, read_source};

#[test]
fn a_file_gone_between_scan_and_read_is_a_warning_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "# A\n\nbleibt\n").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/b.md"), "# B\n\nverschwindet\n").unwrap();
    let scan = scan_vault(dir.path()).unwrap();
    assert_eq!(scan.files.len(), 2);
    std::fs::remove_file(dir.path().join("sub/b.md")).unwrap();
    let read: Vec<_> = scan
        .files
        .iter()
        .map(|f| read_source(f, DEFAULT_MAX_NOTE_BYTES))
        .collect();
    assert!(read[0].is_ok());
    let w = read[1].as_ref().unwrap_err();
    assert_eq!(w.path, "sub/b.md");
    assert!(w.message.contains("cannot read"), "{}", w.message);
}

#[test]
fn a_file_rewritten_between_scan_and_read_is_read_as_it_is_now() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "# A\n\nalt\n").unwrap();
    let scan = scan_vault(dir.path()).unwrap();
    std::fs::write(dir.path().join("a.md"), "# A\n\nneu und länger\n").unwrap();
    let s = read_source(&scan.files[0], DEFAULT_MAX_NOTE_BYTES).unwrap();
    assert!(s.text.contains("neu und länger"));
}

//! Faults of the disk: a full file system (a small tmpfs, mounted by the
//! test), a read-only data dir, and notes that cannot be read. Each is a
//! clear error naming the path, never a signal; an import cut short leaves
//! an index `check` calls clean, and the next import completes it.
//!
//! Mounting needs root (CI runs as root); elsewhere these tests say so and
//! skip. Permission checks need a process without CAP_DAC_OVERRIDE, so the
//! unreadable-note test runs mindnet under `setpriv` with that dropped.

mod common;

use common::{copy_dir, ids, mindnet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn hotpotqa() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/hotpotqa-100/vault")
}

/// A tmpfs mounted for one test, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// `None` (`test` is skipped, saying so) where mounting is not allowed.
    fn mount(test: &str, size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let done = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !done {
            mindnet_testkit::skip(
                test,
                "mounting a tmpfs needs root (CI runs these tests as root)",
            );
            return None;
        }
        Some(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn remount(&self, how: &str) {
        let ok = Command::new("mount")
            .args(["-o", &format!("remount,{how}")])
            .arg(self.path())
            .status()
            .unwrap()
            .success();
        assert!(ok, "remount {how}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.path()).status();
    }
}

fn import_into(vault: &Path, data: &Path) -> Output {
    mindnet(&[
        "import",
        vault.to_str().unwrap(),
        "--data",
        data.to_str().unwrap(),
        "--embedder",
        "use-m3",
    ])
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_clear_disk_error(out: &Output, path: &Path) {
    use std::os::unix::process::ExitStatusExt;
    let err = stderr(out);
    assert!(!out.status.success(), "{err}");
    assert_eq!(out.status.signal(), None, "killed by a signal: {err}");
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(
        err.contains("not enough free space") || err.contains("because its disk is full"),
        "{err}"
    );
}

fn check_clean(data: &Path) {
    let out = mindnet(&["check", "--data", data.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        stderr(&out)
    );
}

#[test]
fn an_import_onto_a_tiny_disk_is_a_clear_error_not_a_bus_error() {
    let Some(fs) = Tmpfs::mount(
        "an_import_onto_a_tiny_disk_is_a_clear_error_not_a_bus_error",
        "6m",
    ) else {
        return;
    };
    let vault = tempfile::tempdir().unwrap();
    copy_dir(&hotpotqa(), vault.path());
    let data = fs.path().join("index");
    let out = import_into(vault.path(), &data);
    assert_clear_disk_error(&out, &data);
}

/// Fills `dir`'s file system until `leave` bytes are free.
fn fill(dir: &Path, leave: u64) -> PathBuf {
    use std::io::Write;
    let free = fs4::available_space(dir).unwrap();
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).unwrap();
    let block = vec![0xa5u8; 1 << 20];
    let mut left = free.saturating_sub(leave);
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        if f.write_all(&block[..n]).is_err() {
            break;
        }
        left -= n as u64;
    }
    f.sync_all().ok();
    path
}

#[test]
fn a_disk_filling_up_mid_import_stops_it_cleanly_and_the_next_import_completes_it() {
    let Some(fs) = Tmpfs::mount(
        "a_disk_filling_up_mid_import_stops_it_cleanly_and_the_next_import_completes_it",
        "1g",
    ) else {
        return;
    };
    let vault = tempfile::tempdir().unwrap();
    copy_dir(&hotpotqa(), vault.path());
    let data = fs.path().join("index");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mindnet"))
        .args(["import", vault.path().to_str().unwrap(), "--data"])
        .arg(&data)
        .args(["--embedder", "use-m3"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Fill the disk once some batches have committed.
    common::wait_for_batch(&mut child, &data, 3);
    // Less than mindnet's margin of 64 MB, more than a batch needs.
    let filler = fill(fs.path(), 40 << 20);
    let out = child.wait_with_output().unwrap();
    assert_clear_disk_error(&out, &data);
    check_clean(&data);

    std::fs::remove_file(filler).unwrap();
    let out = import_into(vault.path(), &data);
    assert!(out.status.success(), "{}", stderr(&out));
    check_clean(&data);
    let clean = tempfile::tempdir().unwrap();
    copy_dir(&hotpotqa(), clean.path());
    common::import_m3(clean.path());
    assert_eq!(ids(&data), ids(&clean.path().join(".mindnet")));
}

#[test]
fn a_read_only_data_dir_is_a_clear_error_and_the_index_is_untouched() {
    let Some(fs) = Tmpfs::mount(
        "a_read_only_data_dir_is_a_clear_error_and_the_index_is_untouched",
        "512m",
    ) else {
        return;
    };
    let vault = tempfile::tempdir().unwrap();
    copy_dir(&common::demo_vault(), vault.path());
    let data = fs.path().join("index");
    assert!(import_into(vault.path(), &data).status.success());
    let before = ids(&data);
    let note = vault.path().join("Profil.md");
    let mut text = std::fs::read_to_string(&note).unwrap();
    text.push_str("\nEin Nachtrag.\n");
    std::fs::write(&note, text).unwrap();

    fs.remount("ro");
    let out = import_into(vault.path(), &data);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains(&data.display().to_string()), "{err}");
    assert!(err.to_lowercase().contains("read-only"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    fs.remount("rw");
    assert_eq!(ids(&data), before, "a refused import changed the index");
    let out = import_into(vault.path(), &data);
    assert!(out.status.success(), "{}", stderr(&out));
    check_clean(&data);
}

/// mindnet without the capabilities that let root read any file.
/// `None` (`test` is skipped, saying so) where capabilities cannot be
/// dropped.
fn mindnet_unprivileged(test: &str, args: &[&str]) -> Option<Output> {
    let probe = Command::new("setpriv")
        .args(["--bounding-set=-dac_override,-dac_read_search", "true"])
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        mindnet_testkit::skip(test, "needs setpriv and root to drop CAP_DAC_OVERRIDE");
        return None;
    }
    Some(
        Command::new("setpriv")
            .args(["--bounding-set=-dac_override,-dac_read_search"])
            .arg(env!("CARGO_BIN_EXE_mindnet"))
            .args(args)
            .output()
            .unwrap(),
    )
}

#[test]
fn a_note_that_cannot_be_read_is_reported_by_name_and_kept_in_the_index() {
    const TEST: &str = "a_note_that_cannot_be_read_is_reported_by_name_and_kept_in_the_index";
    use std::os::unix::fs::PermissionsExt;
    let vault = tempfile::tempdir().unwrap();
    copy_dir(&common::demo_vault(), vault.path());
    // Older than the manifest's 2 s of doubt, so that only the permission
    // change (the inode's ctime) tells the next import to look again.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    common::import_m3(vault.path());
    let before = ids(&vault.path().join(".mindnet"));
    let locked = vault.path().join("Profil.md");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let v = vault.path().to_str().unwrap();
    let Some(out) = mindnet_unprivileged(TEST, &["import", v, "--embedder", "use-m3"]) else {
        return;
    };
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("Profil.md") && said.contains("ermission denied"),
        "{said}"
    );
    // The note is unreadable, not gone: its indexed version stays.
    assert_eq!(ids(&vault.path().join(".mindnet")), before);

    // A data dir mindnet may not write to is an error naming it.
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
    let data = tempfile::tempdir().unwrap();
    let shut = data.path().join("index");
    std::fs::create_dir(&shut).unwrap();
    std::fs::set_permissions(&shut, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = mindnet_unprivileged(
        TEST,
        &[
            "import",
            v,
            "--data",
            shut.to_str().unwrap(),
            "--embedder",
            "use-m3",
        ],
    )
    .unwrap();
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains(&shut.display().to_string()), "{err}");
    assert!(err.contains("ermission denied"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

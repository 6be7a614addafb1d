//! Ranking by meaning: tools and queries as vectors of a sentence
//! embedding model, compared by cosine, each tool's vector computed once
//! per text it is described by.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A sentence embedding model: texts in, vectors of unit length out.
///
/// The `semantic` feature brings one that runs a BERT model from local
/// files (`search::semantic::SentenceModel`);
/// any other (a remote service, a smaller model) can rank the search mode
/// too.
pub trait Embed: Send + Sync {
    /// One vector per text, in order, each of unit length and all of the
    /// same dimension.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Why a model could not be loaded or could not embed a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedError(pub String);

impl core::fmt::Display for EmbedError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EmbedError {}

/// How many texts a model embeds at once when tools are indexed.
const BATCH: usize = 16;

/// A model with the vectors it computed, kept by text: a tool whose text
/// did not change (across snapshots, across the groups of clients that see
/// it) is embedded once. Queries are embedded at each search.
///
/// ```
/// use toolschema_catalog::search::{Embed, EmbedError, Embeddings};
///
/// /// A toy model: how often each of three words appears.
/// struct Words;
/// impl Embed for Words {
///     fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
///         Ok(texts.iter().map(|text| {
///             let count = |w| text.matches(w).count() as f32 + 0.01;
///             let v = [count("rain"), count("invoice"), count("mail")];
///             let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
///             v.iter().map(|x| x / norm).collect()
///         }).collect())
///     }
/// }
///
/// let embeddings = Embeddings::new("words", Words);
/// let texts = ["rain tomorrow".to_owned(), "an invoice".to_owned()];
/// embeddings.documents(&texts).unwrap();
/// embeddings.documents(&texts).unwrap();
/// assert_eq!(embeddings.embedded(), 2, "each text once");
/// ```
pub struct Embeddings {
    name: String,
    model: Box<dyn Embed>,
    known: Mutex<HashMap<Arc<str>, Arc<[f32]>>>,
    embedded: AtomicU64,
}

impl core::fmt::Debug for Embeddings {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Embeddings")
            .field("name", &self.name)
            .field("embedded", &self.embedded())
            .finish_non_exhaustive()
    }
}

impl Embeddings {
    /// `model`'s embeddings, `name` saying which model it is (where it was
    /// loaded from) in logs and health reports.
    pub fn new(name: impl Into<String>, model: impl Embed + 'static) -> Embeddings {
        Embeddings {
            name: name.into(),
            model: Box::new(model),
            known: Mutex::new(HashMap::new()),
            embedded: AtomicU64::new(0),
        }
    }

    /// Which model it is.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many documents the model has embedded so far (texts met again
    /// are not embedded again).
    pub fn embedded(&self) -> u64 {
        self.embedded.load(Ordering::Relaxed)
    }

    /// The vector of each text, in order: those met before as they were,
    /// the others embedded (a few at a time) and kept.
    pub fn documents(&self, texts: &[String]) -> Result<Vec<Arc<[f32]>>, EmbedError> {
        let missing: Vec<&str> = {
            let known = self.lock();
            let mut missing: Vec<&str> = texts
                .iter()
                .map(String::as_str)
                .filter(|text| !known.contains_key(*text))
                .collect();
            missing.sort_unstable();
            missing.dedup();
            missing
        };
        for batch in missing.chunks(BATCH) {
            let vectors = self.model.embed(batch)?;
            if vectors.len() != batch.len() {
                return Err(EmbedError(format!(
                    "the model gave {} vectors for {} texts",
                    vectors.len(),
                    batch.len()
                )));
            }
            self.embedded
                .fetch_add(batch.len() as u64, Ordering::Relaxed);
            let mut known = self.lock();
            for (text, vector) in batch.iter().zip(vectors) {
                known.insert(Arc::from(*text), Arc::from(vector));
            }
        }
        let known = self.lock();
        texts
            .iter()
            .map(|text| {
                known
                    .get(text.as_str())
                    .cloned()
                    .ok_or_else(|| EmbedError(format!("no vector for `{text}`")))
            })
            .collect()
    }

    /// The vector of a query (not kept).
    pub fn query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let mut vectors = self.model.embed(&[text])?;
        match vectors.pop() {
            Some(vector) if vectors.is_empty() => Ok(vector),
            _ => Err(EmbedError("the model gave no vector for the query".into())),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Arc<[f32]>>> {
        match self.known.lock() {
            Ok(known) => known,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

/// The models a configuration can name (`[catalog] search_model`), by
/// name: those installed, and those loaded from a directory.
pub(super) fn installed() -> std::sync::MutexGuard<'static, HashMap<String, Arc<Embeddings>>> {
    static MODELS: std::sync::LazyLock<Mutex<HashMap<String, Arc<Embeddings>>>> =
        std::sync::LazyLock::new(|| Mutex::new(HashMap::new()));
    match MODELS.lock() {
        Ok(models) => models,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Makes `model` the one a configuration naming `name` in `[catalog]
/// search_model` ranks the search mode by, in this process, before any
/// directory of that name is looked for: a model of the service's own (a
/// remote embedding service, another network) serves the search mode as
/// a local one does. The embeddings, which the snapshots share.
///
/// ```
/// use toolschema_catalog::search::{Embed, EmbedError, install_model};
///
/// struct Constant;
/// impl Embed for Constant {
///     fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
///         Ok(texts.iter().map(|_| vec![1.0]).collect())
///     }
/// }
/// let embeddings = install_model("constant", Constant);
/// assert_eq!(embeddings.name(), "constant");
/// ```
pub fn install_model(name: &str, model: impl Embed + 'static) -> Arc<Embeddings> {
    let embeddings = Arc::new(Embeddings::new(name, model));
    installed().insert(name.to_owned(), embeddings.clone());
    embeddings
}

/// The dot product of two vectors (their cosine, both of unit length).
pub(super) fn cosine(a: &[f32], b: &[f32]) -> f32 {
    // Eight lanes at a time: the compiler keeps them in vector registers.
    let mut lanes = [0f32; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..8 {
            lanes[lane] += x[lane] * y[lane];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_is_the_dot_product() {
        let a: Vec<f32> = (0..19).map(|i| i as f32 * 0.25).collect();
        let b: Vec<f32> = (0..19).map(|i| 3.0 - i as f32 * 0.5).collect();
        let expected: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!(
            (cosine(&a, &b) - expected).abs() < 1e-3,
            "{}",
            cosine(&a, &b)
        );
    }
}

//! `list --stats` and `--all-clients` in a build without a tokenizer: they
//! say which feature counts tokens.

use toolschema_catalog::Snapshot;

/// What `--stats` and `--all-clients` answer without the `tokens` feature.
const NEEDS_TOKENS: &str = "token counts need toolschema's `tokens` feature (a tokenizer with 3.6 MB of encoding): build with `features = [\"cli\", \"tokens\"]`";

pub(crate) fn client(_snapshot: &Snapshot, _client: &str) -> Result<String, String> {
    Err(NEEDS_TOKENS.to_owned())
}

pub(crate) fn all_clients(_snapshot: &Snapshot) -> Result<String, String> {
    Err(NEEDS_TOKENS.to_owned())
}

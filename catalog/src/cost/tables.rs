//! What the lists cost, as tables and log lines (the command line's
//! `list --stats` and a server's startup).

use std::fmt::Write as _;

use toolschema_runtime::project::ProtocolRevision;

use super::{ClientCost, ENCODING, Tokenizer, client_cost};
use crate::Snapshot;

fn tokenizer() -> Result<Tokenizer, String> {
    Tokenizer::new().map_err(|e| e.to_string())
}

/// How a client's tools are shown, with how many each way
/// (`data-structure-only 1, lazy 1, discover_tool_schema 1`).
fn shown(cost: &ClientCost) -> String {
    let parts: Vec<String> = cost
        .parts
        .iter()
        .map(|(shown, part)| format!("{shown} {}", part.tools))
        .collect();
    parts.join(", ")
}

fn percent(saving: f64) -> String {
    format!("{:.1}%", saving * 100.0)
}

/// Logs what each client's list costs (`tracing`, at `info`; a server
/// does it at startup).
pub fn log_lists(snapshot: &Snapshot) {
    let tokenizer = match tokenizer() {
        Ok(tokenizer) => tokenizer,
        Err(error) => {
            tracing::warn!(%error, "list costs are not counted");
            return;
        }
    };
    for view in snapshot.clients() {
        if let Some(cost) = client_cost(snapshot, view.id(), ProtocolRevision::LATEST, &tokenizer) {
            tracing::info!(
                client = %cost.client,
                shown = %shown(&cost),
                bytes = cost.list.bytes,
                tokens = cost.list.tokens,
                full_mode_tokens = cost.full.tokens,
                saving = %percent(cost.saving()),
                encoding = "o200k_base",
                "tools/list cost"
            );
        }
    }
}

/// One client's table: each way its tools are shown, the list, the same
/// tools in Full mode, and the saving (`toolschema list --stats --client`).
///
/// ```
/// use toolschema_catalog::Catalog;
/// use toolschema_catalog::cost::client_table;
/// use toolschema_runtime::call::Registry;
///
/// let snapshot = Catalog::open(Registry::new()).snapshot();
/// let open = snapshot.keyless_client().unwrap().id().to_owned();
/// let table = client_table(&snapshot, &open).unwrap();
/// assert!(table.contains("all in Full mode"), "{table}");
/// ```
pub fn client_table(snapshot: &Snapshot, client: &str) -> Result<String, String> {
    let tokenizer = tokenizer()?;
    let cost = client_cost(snapshot, client, ProtocolRevision::LATEST, &tokenizer)
        .ok_or_else(|| format!("there is no client application `{client}`"))?;
    let profile = snapshot
        .client(client)
        .map(|view| view.profile().name())
        .unwrap_or_default();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{client} (profile {profile}): tokens counted with {ENCODING}\n"
    );
    let _ = writeln!(
        out,
        "{:<24} {:>6} {:>9} {:>8}",
        "shown as", "tools", "bytes", "tokens"
    );
    for (shown, part) in &cost.parts {
        let _ = writeln!(
            out,
            "{:<24} {:>6} {:>9} {:>8}",
            shown.to_string(),
            part.tools,
            part.bytes,
            part.tokens
        );
    }
    let _ = writeln!(
        out,
        "{:<24} {:>6} {:>9} {:>8}",
        "the list", cost.list.tools, cost.list.bytes, cost.list.tokens
    );
    let _ = writeln!(
        out,
        "{:<24} {:>6} {:>9} {:>8}",
        "all in Full mode", cost.full.tools, cost.full.bytes, cost.full.tokens
    );
    let _ = write!(
        out,
        "\nsaving: {} of the Full list's tokens ({} fewer)",
        percent(cost.saving()),
        cost.full.tokens.saturating_sub(cost.list.tokens)
    );
    Ok(out)
}

/// Every client's line: its list and the same tools in Full mode
/// (`toolschema list --stats --all-clients`).
///
/// ```
/// use toolschema_catalog::Catalog;
/// use toolschema_catalog::cost::clients_table;
/// use toolschema_runtime::call::Registry;
///
/// let snapshot = Catalog::open(Registry::new()).snapshot();
/// let table = clients_table(&snapshot).unwrap();
/// assert!(table.starts_with("tokens counted with o200k_base"), "{table}");
/// ```
pub fn clients_table(snapshot: &Snapshot) -> Result<String, String> {
    let tokenizer = tokenizer()?;
    let mut costs: Vec<ClientCost> = snapshot
        .clients()
        .filter_map(|view| client_cost(snapshot, view.id(), ProtocolRevision::LATEST, &tokenizer))
        .collect();
    costs.sort_by(|a, b| a.client.cmp(&b.client));
    let labels: Vec<String> = costs.iter().map(shown).collect();
    let client_width = costs
        .iter()
        .map(|c| c.client.len())
        .max()
        .unwrap_or(0)
        .max(6);
    let shown_width = labels.iter().map(String::len).max().unwrap_or(0).max(8);
    let mut out = String::new();
    let _ = writeln!(out, "tokens counted with {ENCODING}\n");
    let _ = writeln!(
        out,
        "{:<client_width$}  {:<shown_width$} {:>6} {:>9} {:>8} {:>12} {:>8}",
        "client", "shown as", "tools", "bytes", "tokens", "Full tokens", "saving"
    );
    for (cost, label) in costs.iter().zip(&labels) {
        let _ = writeln!(
            out,
            "{:<client_width$}  {:<shown_width$} {:>6} {:>9} {:>8} {:>12} {:>8}",
            cost.client,
            label,
            cost.list.tools,
            cost.list.bytes,
            cost.list.tokens,
            cost.full.tokens,
            percent(cost.saving())
        );
    }
    Ok(out.trim_end().to_owned())
}

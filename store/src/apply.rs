//! An action applied in one transaction: checked, gated, written with its
//! audit entry and change notice.

use crate::{Action, Records, StoreError};
use crate::{
    CHANNEL, Compatibility, Done, Kind, Problems, SETTINGS, Version, changes, db, gate, records,
};
use serde::Serialize;
use serde_json::{Value, json};
use tokio_postgres::Client;
use toolschema_catalog::Config;
use toolschema_config::Delta;
use toolschema_runtime::call::Registry;

/// An applied action: the revision it made, and what it did.
#[derive(Debug, Clone, Serialize)]
pub struct Applied {
    /// The store's new revision.
    pub revision: i64,
    /// What the action did.
    #[serde(flatten)]
    pub done: Done,
    /// What the change serves each tool's clients instead of what they
    /// were served (and whether its breaking changes were accepted), and
    /// for a draft, what publishing it would change for them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compatibility: Vec<Compatibility>,
}

/// Applies `action` to `records` (those of the store at `revision`;
/// `config`, if given, their checked configuration), which `before` holds
/// the `scope` of as they were, checks the result (as a change of `config` where it
/// can), gates it ([`gated`]), and writes it in `transaction`: what was
/// applied, and the configuration checked.
pub(super) async fn apply_to(
    transaction: &tokio_postgres::Transaction<'_>,
    records: &mut Records,
    config: Option<&Config>,
    (before, scope): (&Records, &records::Scope),
    (revision, actor, action, accept): (i64, &str, Action, &[String]),
    registry: &Registry,
) -> Result<(Applied, std::sync::Arc<Config>), StoreError> {
    let name = action.name();
    let drafted = match &action {
        Action::Draft { tool, version, .. } => Some((tool.clone(), *version)),
        _ => None,
    };
    // What each tool the action may touch is served before it.
    let baselines: Vec<gate::Baseline> = gate::candidates(scope, records)
        .into_iter()
        .map(|tool| gate::Baseline {
            served: gate::Served::of(records, registry, &tool),
            tool,
            kept: false,
        })
        .collect();
    let (mut done, after, written, config) = checking(|| {
        let done = action
            .apply(records, registry)
            .map_err(StoreError::Refused)?;
        let after = records.part(scope);
        let written = changes::delta(before, &after, records);
        let config = match config {
            Some(config) => records.check_change(registry, config, &written),
            None => records.check(registry).map(|config| (config, None)),
        };
        let (config, _) = config.map_err(StoreError::Invalid)?;
        Ok::<_, StoreError>((done, after, written, config))
    })?;
    let drafted = drafted
        .as_ref()
        .map(|(tool, version)| (tool.as_str(), *version));
    let compatibility = gated(
        transaction,
        baselines,
        (records, &config),
        (accept, drafted),
        &mut done,
        registry,
    )
    .await?;
    let applied = write(
        transaction,
        revision,
        (actor, name, done),
        compatibility,
        (before, &after, &written),
    )
    .await?;
    Ok((applied, std::sync::Arc::new(config)))
}

/// Runs `work`, which checks a configuration (seconds at 100,000 tools),
/// without holding up the runtime's other tasks: on a multi-threaded
/// runtime its worker first hands them to another thread
/// ([`tokio::task::block_in_place`]); on a single-threaded one (a test's,
/// a command's) it runs as it is.
pub(super) fn checking<T>(work: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current().map(|handle| handle.runtime_flavor()) {
        Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}

/// The compatibility gate of a change, in its transaction: what each tool
/// of `baselines` was served before the change (or, when nothing was,
/// what the store kept as served last) against what the records `after`
/// (checked as `config`) serve. Refused ([`StoreError::Breaking`]) when a
/// report may break clients and its digest is not in `accept`; else the
/// baselines are kept and the reports returned, with the report of a
/// `drafted` version against what its tool serves.
pub(super) async fn gated(
    transaction: &tokio_postgres::Transaction<'_>,
    mut baselines: Vec<gate::Baseline>,
    (after, config): (&Records, &Config),
    (accept, drafted): (&[String], Option<(&str, u32)>),
    done: &mut Done,
    registry: &Registry,
) -> Result<Vec<Compatibility>, StoreError> {
    let unserved: Vec<String> = baselines
        .iter()
        .filter(|baseline| baseline.served.is_none())
        .map(|baseline| baseline.tool.clone())
        .collect();
    let kept = gate::kept(transaction, &unserved).await?;
    if !kept.is_empty() {
        let mut kept: std::collections::HashMap<String, gate::Served> = kept.into_iter().collect();
        for baseline in &mut baselines {
            if let Some(served) = kept.remove(&baseline.tool) {
                baseline.served = Some(served);
                baseline.kept = true;
            }
        }
    }
    let drafted_baseline = drafted.and_then(|(tool, _)| {
        let baseline = baselines.iter().find(|baseline| baseline.tool == tool)?;
        baseline.served.clone()
    });
    let mut verdict = gate::judge(baselines, after, config, registry);
    let refused = verdict.refused(accept);
    if !refused.is_empty() {
        return Err(StoreError::Breaking(refused));
    }
    gate::keep(transaction, &verdict).await?;
    for report in verdict.reports.iter().filter(|report| report.accepted) {
        done.summary.push_str(&format!(
            "; `{}` {} -> {} served, its breaking changes accepted (report {})",
            report.tool, report.from, report.to, report.digest
        ));
    }
    let mut reports = verdict.reports;
    if let Some((tool, version)) = drafted {
        // What the tool serves after the draft (a derived tool's first
        // draft records its version), or what it served before.
        let baseline = gate::Served::of(after, registry, tool).or(drafted_baseline);
        reports.extend(gate::draft_report(
            tool, version, baseline, config, registry,
        ));
    }
    Ok(reports)
}

/// Writes `written`, what changed from `before` to `after` (the records an action
/// wrote, or all of them) as revision `revision + 1`: the records, the
/// change log's entry, the audit's, and the notification.
pub(super) async fn write(
    transaction: &tokio_postgres::Transaction<'_>,
    revision: i64,
    (actor, name, done): (&str, &str, Done),
    compatibility: Vec<Compatibility>,
    (before, after, written): (&Records, &Records, &Delta),
) -> Result<Applied, StoreError> {
    if let Some(problem) = records::unstorable(before, after) {
        return Err(StoreError::Invalid(Problems(vec![problem])));
    }
    let misnamed = records::misnamed(before, after);
    if !misnamed.is_empty() {
        return Err(StoreError::Invalid(Problems(misnamed)));
    }
    db::write(transaction, written).await?;
    let revision = revision + 1;
    transaction
        .execute("UPDATE catalog_revision SET revision = $1", &[&revision])
        .await?;
    db::log(transaction, revision, written).await?;
    let mut detail = json!({
        "summary": done.summary,
        "changes": audit_diff(before, after),
    });
    if !compatibility.is_empty() {
        detail["compatibility"] = serde_json::to_value(&compatibility).unwrap_or_default();
    }
    transaction
        .execute(
            "INSERT INTO audit (actor, action, target, revision, detail) VALUES ($1, $2, $3, $4, $5)",
            &[&actor, &name, &done.target, &revision, &detail],
        )
        .await?;
    transaction
        .execute(
            "SELECT pg_notify($1, $2)",
            &[&CHANNEL, &revision.to_string()],
        )
        .await?;
    Ok(Applied {
        revision,
        done,
        compatibility,
    })
}

/// Every record and the revision, in one consistent snapshot.
pub(crate) async fn read_with(client: &mut Client) -> Result<(i64, Records), StoreError> {
    let transaction = consistent(client).await?;
    let read = db::read(&transaction).await?;
    transaction.commit().await?;
    Ok(read)
}

/// A read-only transaction that sees one snapshot of the store.
pub(crate) async fn consistent(
    client: &mut Client,
) -> Result<tokio_postgres::Transaction<'_>, tokio_postgres::Error> {
    client
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
}

/// How many changed records the audit trail shows whole; beyond, it names
/// them (a file of 10,000 tools loaded is not copied into the trail).
pub(super) const AUDITED_WHOLE: usize = 100;

/// The records an action changed, before and after (`null` when absent),
/// for the audit trail; only their names when there are many. Key hashes
/// are kept; keys are never stored.
fn audit_diff(before: &Records, after: &Records) -> Vec<Value> {
    let mut changed = changed_records(before, after);
    if changed.len() > AUDITED_WHOLE {
        for change in &mut changed {
            if let Some(change) = change.as_object_mut() {
                let (was, is) = (!change["before"].is_null(), !change["after"].is_null());
                change.remove("before");
                change.remove("after");
                let what = match (was, is) {
                    (false, _) => "created",
                    (true, false) => "removed",
                    (true, true) => "changed",
                };
                change.insert("change".into(), Value::from(what));
            }
        }
    }
    changed
}

pub(super) fn changed_records(before: &Records, after: &Records) -> Vec<Value> {
    let mut changed = Vec::new();
    for name in SETTINGS {
        let (old, new) = (before.settings.get(name), after.settings.get(name));
        if old != new {
            changed.push(
                json!({"record": format!("setting \"{name}\""), "before": old, "after": new}),
            );
        }
    }
    for kind in Kind::ALL {
        let ids: std::collections::BTreeSet<&str> = before
            .of(kind)
            .chain(after.of(kind))
            .map(|(id, _)| id)
            .collect();
        for id in ids {
            let (old, new) = (before.get(kind, id), after.get(kind, id));
            if old != new {
                changed.push(
                    json!({"record": format!("{kind} \"{id}\""), "before": old, "after": new}),
                );
            }
        }
    }
    let keys: std::collections::BTreeSet<&(String, u32)> = before
        .versions
        .keys()
        .chain(after.versions.keys())
        .collect();
    for key in keys {
        let (old, new) = (before.versions.get(key), after.versions.get(key));
        if old != new {
            let show = |version: Option<&Version>| {
                version.map(|v| json!({"status": v.status.name(), "definition": v.definition}))
            };
            changed.push(json!({
                "record": format!("tool_version \"{}\" {}", key.0, key.1),
                "before": show(old),
                "after": show(new),
            }));
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::checking;
    use std::time::Duration;

    #[test]
    fn a_check_lets_the_runtimes_other_tasks_run() {
        // One worker: were the check to hold it, the task that answers it
        // would never run, and the check would wait in vain.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .expect("a runtime");
        let (send, receive) = std::sync::mpsc::channel();
        let answered = runtime.block_on(async move {
            let check =
                tokio::spawn(
                    async move { checking(|| receive.recv_timeout(Duration::from_secs(60))) },
                );
            tokio::spawn(async move { send.send("answered") });
            check.await.expect("the check ran")
        });
        assert_eq!(answered, Ok("answered"));
        // Outside a multi-threaded runtime the work runs as it is.
        assert_eq!(checking(|| 7), 7);
        let single = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        assert_eq!(single.block_on(async { checking(|| 8) }), 8);
    }
}

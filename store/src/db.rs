//! Reading and writing records in PostgreSQL.

use serde_json::Value;
use tokio_postgres::{GenericClient, Row};
use toolschema_catalog::{Status, parallel};

use std::collections::BTreeMap;

use crate::StoreError;
use crate::changes::Changes;
use crate::records::{Body, Kind, Records, Version};

/// The channel replicas listen on; the payload is the new revision.
pub const CHANNEL: &str = "toolschema_catalog";

/// Every record, and the revision they make.
pub(crate) async fn read(db: &impl GenericClient) -> Result<(i64, Records), StoreError> {
    let revision: i64 = db
        .query_one("SELECT revision FROM catalog_revision", &[])
        .await?
        .get(0);
    let settings = db.query("SELECT name, body FROM setting", &[]).await?;
    let mut kinds = Vec::with_capacity(Kind::ALL.len());
    for kind in Kind::ALL {
        let table = kind.table();
        let rows = db
            .query(&format!("SELECT id, body FROM {table}"), &[])
            .await?;
        kinds.push((kind, rows));
    }
    let versions = db
        .query(
            "SELECT tool, version, status, definition FROM tool_version",
            &[],
        )
        .await?;
    // The rows' JSON (200,000 documents at 100,000 tools) is read off the
    // runtime's workers, so that a replica reading in full while it
    // serves does not hold requests up, and on every core.
    let parsed = tokio::task::spawn_blocking(move || parse(settings, kinds, versions)).await;
    match parsed {
        Ok(records) => Ok((revision, records?)),
        Err(join) => match join.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            // Cancelled: only as the runtime shuts down.
            Err(_) => Err(StoreError::Refused(crate::Refused::Conflict(
                "the records were not read: the server is shutting down".into(),
            ))),
        },
    }
}

/// The records in the rows read.
fn parse(
    settings: Vec<Row>,
    kinds: Vec<(Kind, Vec<Row>)>,
    versions: Vec<Row>,
) -> Result<Records, tokio_postgres::Error> {
    let mut records = Records::default();
    for row in settings {
        let name: String = row.try_get(0)?;
        records.settings.insert(name, object(row.try_get(1)?));
    }
    for (kind, rows) in kinds {
        let read = parallel::map(rows, |row| {
            Ok::<_, tokio_postgres::Error>((row.try_get(0)?, object(row.try_get(1)?)))
        });
        let of_kind = records.records.entry(kind).or_default();
        for record in read {
            let (id, body): (String, Body) = record?;
            of_kind.insert(id, body);
        }
    }
    let read = parallel::map(versions, |row| {
        let tool: String = row.try_get(0)?;
        let number: i32 = row.try_get(1)?;
        let status: String = row.try_get(2)?;
        let definition: Option<Value> = row.try_get(3)?;
        let version = Version {
            // The table's check allows only the four words.
            status: Status::from_name(&status).unwrap_or(Status::Draft),
            definition: definition.map(object),
        };
        Ok::<_, tokio_postgres::Error>(((tool, u32::try_from(number).unwrap_or(0)), version))
    });
    for version in read {
        let (key, version) = version?;
        records.versions.insert(key, version);
    }
    Ok(records)
}

/// Writes `changes`: one statement per table for what is upserted and one
/// for what is deleted, whatever the number of records (a whole catalog of
/// 10,000 tools is a few statements).
pub(crate) async fn write(
    db: &impl GenericClient,
    changes: &Changes,
) -> Result<(), tokio_postgres::Error> {
    let (names, bodies, gone) = split(&changes.settings);
    upsert(db, "setting", "name", &names, &bodies).await?;
    delete(db, "setting", "name", &gone).await?;
    for (kind, of_kind) in &changes.records {
        let (ids, bodies, gone) = split(of_kind);
        upsert(db, kind.table(), "id", &ids, &bodies).await?;
        delete(db, kind.table(), "id", &gone).await?;
    }
    let (mut tools, mut numbers, mut statuses, mut definitions) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut gone_tools, mut gone_numbers) = (Vec::new(), Vec::new());
    for ((tool, number), version) in &changes.versions {
        let number = i32::try_from(*number).unwrap_or(i32::MAX);
        match version {
            Some(version) => {
                tools.push(tool.clone());
                numbers.push(number);
                statuses.push(version.status.name().to_owned());
                definitions.push(version.definition.clone().map(Value::Object));
            }
            None => {
                gone_tools.push(tool.clone());
                gone_numbers.push(number);
            }
        }
    }
    if !tools.is_empty() {
        db.execute(
            "INSERT INTO tool_version (tool, version, status, definition) \
             SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::jsonb[]) \
             ON CONFLICT (tool, version) DO UPDATE SET status = EXCLUDED.status, definition = EXCLUDED.definition",
            &[&tools, &numbers, &statuses, &definitions],
        )
        .await?;
    }
    if !gone_tools.is_empty() {
        db.execute(
            "DELETE FROM tool_version WHERE (tool, version) IN (SELECT * FROM unnest($1::text[], $2::int[]))",
            &[&gone_tools, &gone_numbers],
        )
        .await?;
    }
    Ok(())
}

/// The records written (keys and bodies) and the keys removed.
fn split(records: &BTreeMap<String, Option<Body>>) -> (Vec<String>, Vec<Value>, Vec<String>) {
    let (mut keys, mut bodies, mut gone) = (Vec::new(), Vec::new(), Vec::new());
    for (key, body) in records {
        match body {
            Some(body) => {
                keys.push(key.clone());
                bodies.push(Value::Object(body.clone()));
            }
            None => gone.push(key.clone()),
        }
    }
    (keys, bodies, gone)
}

/// How many revisions the change log keeps: a replica further behind reads
/// every record.
pub(crate) const LOGGED_REVISIONS: i64 = 1_000;

/// Logs `changes` as what `revision` did, and forgets the revisions older
/// than the last [`LOGGED_REVISIONS`].
pub(crate) async fn log(
    db: &impl GenericClient,
    revision: i64,
    changes: &Changes,
) -> Result<(), tokio_postgres::Error> {
    db.execute(
        "INSERT INTO change (revision, changes) VALUES ($1, $2)",
        &[&revision, &changes.to_json()],
    )
    .await?;
    db.execute(
        "DELETE FROM change WHERE revision <= $1",
        &[&(revision - LOGGED_REVISIONS)],
    )
    .await
    .map(drop)
}

/// The changes of the revisions after `since` up to `until`, in order;
/// `None` when one of them is not in the log (forgotten, or made before
/// the log existed) or not readable.
pub(crate) async fn changes_since(
    db: &impl GenericClient,
    since: i64,
    until: i64,
) -> Result<Option<Vec<Changes>>, tokio_postgres::Error> {
    let rows = db
        .query(
            "SELECT revision, changes FROM change WHERE revision > $1 AND revision <= $2 ORDER BY revision",
            &[&since, &until],
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for (expected, row) in (since + 1..).zip(&rows) {
        let revision: i64 = row.get(0);
        let value: Value = row.get(1);
        match Changes::from_json(&value) {
            Some(changes) if revision == expected => out.push(changes),
            _ => return Ok(None),
        }
    }
    Ok((i64::try_from(out.len()).ok() == Some(until - since)).then_some(out))
}

/// Creates or replaces the records `keys` of `table` with `bodies`.
async fn upsert(
    db: &impl GenericClient,
    table: &str,
    key: &str,
    keys: &[String],
    bodies: &[Value],
) -> Result<(), tokio_postgres::Error> {
    if keys.is_empty() {
        return Ok(());
    }
    db.execute(
        &format!(
            "INSERT INTO {table} ({key}, body) SELECT * FROM unnest($1::text[], $2::jsonb[]) \
             ON CONFLICT ({key}) DO UPDATE SET body = EXCLUDED.body"
        ),
        &[&keys, &bodies],
    )
    .await
    .map(drop)
}

/// Removes the records `keys` of `table`.
async fn delete(
    db: &impl GenericClient,
    table: &str,
    key: &str,
    keys: &[String],
) -> Result<(), tokio_postgres::Error> {
    if keys.is_empty() {
        return Ok(());
    }
    db.execute(
        &format!("DELETE FROM {table} WHERE {key} = ANY($1::text[])"),
        &[&keys],
    )
    .await
    .map(drop)
}

fn object(value: Value) -> Body {
    match value {
        Value::Object(map) => map,
        // The tables' checks allow only objects.
        _ => Body::new(),
    }
}

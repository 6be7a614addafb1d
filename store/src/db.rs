//! Reading and writing records in PostgreSQL.

use serde_json::Value;
use tokio_postgres::{GenericClient, Row};
use toolschema_catalog::Status;
use toolschema_runtime::parallel;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::StoreError;
use crate::records::{Body, Kind, Records, Version};
use toolschema_config::{Delta, Section, ToolRecord};

/// The channel replicas listen on; the payload is the new revision.
pub const CHANNEL: &str = "toolschema_catalog";

/// Where a row is: a setting, a record, a version.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum RowKey {
    Setting(String),
    Record(Kind, String),
    Version(String, u32),
}

/// The hashes PostgreSQL computed of the rows read (their `row_hash`), and
/// their XOR: the digest of what a replica serves, compared with the
/// tables' ([`digest`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct RowHashes {
    rows: HashMap<RowKey, i64>,
    total: i64,
}

impl RowHashes {
    /// The row at `key` now hashes to `hash` (`None`: it is gone).
    pub(crate) fn set(&mut self, key: RowKey, hash: Option<i64>) {
        let old = match hash {
            Some(hash) => {
                self.total ^= hash;
                self.rows.insert(key, hash)
            }
            None => self.rows.remove(&key),
        };
        if let Some(old) = old {
            self.total ^= old;
        }
    }

    /// The XOR of every row's hash.
    pub(crate) fn total(&self) -> i64 {
        self.total
    }
}

/// The tables' digest: the XOR of every row's hash, with the revision, in
/// one statement (one snapshot).
pub(crate) async fn digest(db: &impl GenericClient) -> Result<(i64, i64), tokio_postgres::Error> {
    let mut xor = String::from("0::bigint");
    for table in ["setting", "tool_version"]
        .into_iter()
        .chain(Kind::ALL.into_iter().map(Kind::table))
    {
        xor.push_str(&format!(
            " # (SELECT coalesce(bit_xor(row_hash), 0) FROM {table})"
        ));
    }
    let row = db
        .query_one(
            &format!("SELECT revision, {xor} FROM catalog_revision"),
            &[],
        )
        .await?;
    Ok((row.try_get(0)?, row.try_get(1)?))
}

/// The revision and the hashes of every row, without their bodies, in one
/// snapshot (`db` in a transaction of its own): what a replica handed its
/// records by the program that read them ([`Store::follow_from`]) learns
/// of them, for the tables' digest to be compared with from then on.
///
/// [`Store::follow_from`]: crate::Store::follow_from
pub(crate) async fn hashes(db: &impl GenericClient) -> Result<(i64, RowHashes), StoreError> {
    let revision: i64 = db
        .query_one("SELECT revision FROM catalog_revision", &[])
        .await?
        .try_get(0)?;
    let mut hashes = RowHashes::default();
    for row in db.query("SELECT name, row_hash FROM setting", &[]).await? {
        hashes.set(RowKey::Setting(row.try_get(0)?), Some(row.try_get(1)?));
    }
    for kind in Kind::ALL {
        let rows = db
            .query(&format!("SELECT id, row_hash FROM {}", kind.table()), &[])
            .await?;
        for row in rows {
            hashes.set(RowKey::Record(kind, row.try_get(0)?), Some(row.try_get(1)?));
        }
    }
    let rows = db
        .query("SELECT tool, version, row_hash FROM tool_version", &[])
        .await?;
    for row in rows {
        let number: i32 = row.try_get(1)?;
        let key = RowKey::Version(row.try_get(0)?, u32::try_from(number).unwrap_or(0));
        hashes.set(key, Some(row.try_get(2)?));
    }
    Ok((revision, hashes))
}

/// Every record, and the revision they make.
pub(crate) async fn read(db: &impl GenericClient) -> Result<(i64, Records), StoreError> {
    let (revision, records, _) = read_rows(db, false).await?;
    Ok((revision, records))
}

/// Every record, the revision they make, and their rows' hashes.
pub(crate) async fn read_hashed(
    db: &impl GenericClient,
) -> Result<(i64, Records, RowHashes), StoreError> {
    read_rows(db, true).await
}

/// Every record and the revision they make, and with `hashed` the rows'
/// hashes (else none).
async fn read_rows(
    db: &impl GenericClient,
    hashed: bool,
) -> Result<(i64, Records, RowHashes), StoreError> {
    let revision: i64 = db
        .query_one("SELECT revision FROM catalog_revision", &[])
        .await?
        .get(0);
    let settings = db
        .query("SELECT name, body, row_hash FROM setting", &[])
        .await?;
    let mut kinds = Vec::with_capacity(Kind::ALL.len());
    for kind in Kind::ALL {
        let table = kind.table();
        let rows = db
            .query(&format!("SELECT id, body, row_hash FROM {table}"), &[])
            .await?;
        kinds.push((kind, rows));
    }
    let versions = db
        .query(
            "SELECT tool, version, status, definition, row_hash FROM tool_version",
            &[],
        )
        .await?;
    // The rows' JSON (200,000 documents at 100,000 tools) is read off the
    // runtime's workers, so that a replica reading in full while it
    // serves does not hold requests up, and on every core.
    let parsed =
        tokio::task::spawn_blocking(move || parse(settings, kinds, versions, hashed)).await;
    match parsed {
        Ok(read) => {
            let (records, hashes) = read?;
            Ok((revision, records, hashes))
        }
        Err(join) => match join.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            // Cancelled: only as the runtime shuts down.
            Err(_) => Err(StoreError::Refused(crate::Refused::Conflict(
                "the records were not read: the server is shutting down".into(),
            ))),
        },
    }
}

/// The records in the rows read, and the rows' hashes (the rows are
/// `key, body…, row_hash`).
fn parse(
    settings: Vec<Row>,
    kinds: Vec<(Kind, Vec<Row>)>,
    versions: Vec<Row>,
    hashed: bool,
) -> Result<(Records, RowHashes), tokio_postgres::Error> {
    let mut records = Records::default();
    let mut hashes = RowHashes::default();
    let mut hash = |key: &dyn Fn() -> RowKey, value: i64| {
        if hashed {
            hashes.set(key(), Some(value));
        }
    };
    for row in settings {
        let name: String = row.try_get(0)?;
        hash(&|| RowKey::Setting(name.clone()), row.try_get(2)?);
        records.settings.insert(name, object(row.try_get(1)?));
    }
    for (kind, rows) in kinds {
        let read = parallel::map(rows, |row| {
            Ok::<_, tokio_postgres::Error>((
                row.try_get(0)?,
                object(row.try_get(1)?),
                row.try_get(2)?,
            ))
        });
        let of_kind = records.records.entry(kind).or_default();
        for record in read {
            let (id, body, row_hash): (String, Body, i64) = record?;
            hash(&|| RowKey::Record(kind, id.clone()), row_hash);
            of_kind.insert(id, body);
        }
    }
    let read = parallel::map(versions, version_row);
    for version in read {
        let (key, version, row_hash) = version?;
        hash(&|| RowKey::Version(key.0.clone(), key.1), row_hash);
        records.versions.insert(key, version);
    }
    Ok((records, hashes))
}

/// A row of `tool_version`: `tool, version, status, definition, row_hash`.
fn version_row(row: Row) -> Result<((String, u32), Version, i64), tokio_postgres::Error> {
    let tool: String = row.try_get(0)?;
    let number: i32 = row.try_get(1)?;
    let status: String = row.try_get(2)?;
    let definition: Option<Value> = row.try_get(3)?;
    let version = Version {
        // The table's check allows only the four words.
        status: Status::from_name(&status).unwrap_or(Status::Draft),
        definition: definition.map(object),
    };
    Ok((
        (tool, u32::try_from(number).unwrap_or(0)),
        version,
        row.try_get(4)?,
    ))
}

/// The rows `deltas` wrote or removed, as the tables hold them now: a
/// delta the tables back, whatever the change log's entries said of the
/// rows (a tool with every version it has now), and the rows' hashes
/// (`None`: not in the table). `held` are the records the replica held
/// before: the versions it held of a tool and the tables no longer have
/// are gone.
pub(crate) async fn rows_of(
    db: &impl GenericClient,
    deltas: &[Delta],
    held: &Records,
) -> Result<(Delta, Vec<(RowKey, Option<i64>)>), tokio_postgres::Error> {
    let mut settings = BTreeSet::new();
    let mut records: BTreeMap<Kind, BTreeSet<String>> = BTreeMap::new();
    let mut tools = BTreeSet::new();
    for delta in deltas {
        settings.extend(delta.settings.keys().map(|s| s.key().to_owned()));
        for (section, ids) in &delta.records {
            if let Some(kind) = Kind::of_section(*section) {
                records.entry(kind).or_default().extend(ids.keys().cloned());
            }
        }
        tools.extend(delta.tools.keys().cloned());
    }
    if !tools.is_empty() {
        records
            .entry(Kind::ConfiguredTool)
            .or_default()
            .extend(tools.iter().cloned());
    }
    let mut out = Delta::default();
    let mut hashes = Vec::new();
    let names: Vec<String> = settings.into_iter().collect();
    for name in &names {
        if let Some(section) = Section::from_key(name) {
            out.settings.insert(section, None);
        }
    }
    if !names.is_empty() {
        let rows = db
            .query(
                "SELECT name, body, row_hash FROM setting WHERE name = ANY($1::text[])",
                &[&names],
            )
            .await?;
        let mut found = BTreeSet::new();
        for row in rows {
            let name: String = row.try_get(0)?;
            hashes.push((RowKey::Setting(name.clone()), Some(row.try_get(2)?)));
            if let Some(section) = Section::from_key(&name) {
                out.settings.insert(section, Some(object(row.try_get(1)?)));
            }
            found.insert(name);
        }
        for name in names.into_iter().filter(|n| !found.contains(n)) {
            hashes.push((RowKey::Setting(name), None));
        }
    }
    let mut configured = BTreeMap::new();
    for (kind, ids) in records {
        let ids: Vec<String> = ids.into_iter().collect();
        let table = kind.table();
        let rows = db
            .query(
                &format!("SELECT id, body, row_hash FROM {table} WHERE id = ANY($1::text[])"),
                &[&ids],
            )
            .await?;
        let mut of_kind: BTreeMap<String, Option<Body>> =
            ids.into_iter().map(|id| (id, None)).collect();
        for row in rows {
            let id: String = row.try_get(0)?;
            hashes.push((RowKey::Record(kind, id.clone()), Some(row.try_get(2)?)));
            of_kind.insert(id, Some(object(row.try_get(1)?)));
        }
        for id in of_kind
            .iter()
            .filter(|(_, b)| b.is_none())
            .map(|(id, _)| id)
        {
            hashes.push((RowKey::Record(kind, id.clone()), None));
        }
        match kind {
            Kind::ConfiguredTool => configured = of_kind,
            _ => {
                out.records.insert(kind.section(), of_kind);
            }
        }
    }
    if !tools.is_empty() {
        let names: Vec<String> = tools.iter().cloned().collect();
        let rows = db
            .query(
                "SELECT tool, version, status, definition, row_hash FROM tool_version \
                 WHERE tool = ANY($1::text[])",
                &[&names],
            )
            .await?;
        let mut versions: BTreeMap<String, BTreeMap<u32, Version>> = BTreeMap::new();
        for row in rows {
            let ((tool, number), version, hash) = version_row(row)?;
            hashes.push((RowKey::Version(tool.clone(), number), Some(hash)));
            versions.entry(tool).or_default().insert(number, version);
        }
        for tool in tools {
            let now = versions.remove(&tool).unwrap_or_default();
            for (number, _) in held.versions_of(&tool) {
                if !now.contains_key(&number) {
                    hashes.push((RowKey::Version(tool.clone(), number), None));
                }
            }
            let body = configured.remove(&tool).flatten();
            let record = (body.is_some() || !now.is_empty()).then_some(ToolRecord {
                configured: body,
                versions: now,
            });
            out.tools.insert(tool, record);
        }
    }
    Ok((out, hashes))
}

/// Writes `delta`: one statement per table for what is upserted and one
/// for what is deleted, whatever the number of records (a whole catalog of
/// 10,000 tools is a few statements). A tool's versions are replaced by
/// those it has now.
pub(crate) async fn write(
    db: &impl GenericClient,
    delta: &Delta,
) -> Result<(), tokio_postgres::Error> {
    let settings: BTreeMap<String, Option<Body>> = delta
        .settings
        .iter()
        .map(|(section, body)| (section.key().to_owned(), body.clone()))
        .collect();
    let (names, bodies, gone) = split(&settings);
    upsert(db, "setting", "name", &names, &bodies).await?;
    delete(db, "setting", "name", &gone).await?;
    for (section, of_section) in &delta.records {
        let (ids, bodies, gone) = split(of_section);
        upsert(db, section.key(), "id", &ids, &bodies).await?;
        delete(db, section.key(), "id", &gone).await?;
    }
    if delta.tools.is_empty() {
        return Ok(());
    }
    let configured: BTreeMap<String, Option<Body>> = delta
        .tools
        .iter()
        .map(|(name, tool)| {
            (
                name.clone(),
                tool.as_ref().and_then(|t| t.configured.clone()),
            )
        })
        .collect();
    let (ids, bodies, gone) = split(&configured);
    upsert(db, Kind::ConfiguredTool.table(), "id", &ids, &bodies).await?;
    let (mut tools, mut numbers, mut statuses, mut definitions) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (tool, record) in &delta.tools {
        for (number, version) in record.iter().flat_map(|r| &r.versions) {
            tools.push(tool.clone());
            numbers.push(i32::try_from(*number).unwrap_or(i32::MAX));
            statuses.push(version.status.name().to_owned());
            definitions.push(version.definition.clone().map(Value::Object));
        }
    }
    // The versions the tools no longer have, then those they have.
    let named: Vec<String> = delta.tools.keys().cloned().collect();
    db.execute(
        "DELETE FROM tool_version WHERE tool = ANY($1::text[]) \
         AND (tool, version) NOT IN (SELECT * FROM unnest($2::text[], $3::int[]))",
        &[&named, &tools, &numbers],
    )
    .await?;
    if !tools.is_empty() {
        db.execute(
            "INSERT INTO tool_version AS v (tool, version, status, definition) \
             SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::jsonb[]) \
             ON CONFLICT (tool, version) DO UPDATE SET status = EXCLUDED.status, definition = EXCLUDED.definition \
             WHERE (v.status, v.definition) IS DISTINCT FROM (EXCLUDED.status, EXCLUDED.definition)",
            &[&tools, &numbers, &statuses, &definitions],
        )
        .await?;
    }
    delete(db, Kind::ConfiguredTool.table(), "id", &gone).await
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

/// Logs `delta` as what `revision` did, and forgets the revisions older
/// than the last [`LOGGED_REVISIONS`].
pub(crate) async fn log(
    db: &impl GenericClient,
    revision: i64,
    delta: &Delta,
) -> Result<(), tokio_postgres::Error> {
    // A delta is maps of strings and JSON values: it always serializes.
    let entry = serde_json::to_value(delta).unwrap_or(Value::Null);
    db.execute(
        "INSERT INTO change (revision, changes) VALUES ($1, $2)",
        &[&revision, &entry],
    )
    .await?;
    db.execute(
        "DELETE FROM change WHERE revision <= $1",
        &[&(revision - LOGGED_REVISIONS)],
    )
    .await
    .map(drop)
}

/// The deltas of the revisions after `since` up to `until`, in order;
/// `None` when one of them is not in the log (forgotten, or made before
/// the log existed) or not readable as a delta ([`Delta::from_log_text`]:
/// bounded in length and depth).
pub(crate) async fn changes_since(
    db: &impl GenericClient,
    since: i64,
    until: i64,
) -> Result<Option<Vec<Delta>>, tokio_postgres::Error> {
    let rows = db
        .query(
            "SELECT revision, changes::text FROM change WHERE revision > $1 AND revision <= $2 ORDER BY revision",
            &[&since, &until],
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for (expected, row) in (since + 1..).zip(&rows) {
        // A row that cannot be read is a missing one: the replica reads
        // every record.
        let (Ok(revision), Ok(text)) = (row.try_get::<_, i64>(0), row.try_get::<_, &str>(1)) else {
            return Ok(None);
        };
        match Delta::from_log_text(text) {
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

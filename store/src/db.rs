//! Reading and writing records in PostgreSQL.

use serde_json::Value;
use tokio_postgres::GenericClient;
use toolschema_catalog::Status;

use crate::records::{Body, Kind, Records, SETTINGS, Version};

/// The channel replicas listen on; the payload is the new revision.
pub const CHANNEL: &str = "toolschema_catalog";

/// Every record, and the revision they make.
pub(crate) async fn read(db: &impl GenericClient) -> Result<(i64, Records), tokio_postgres::Error> {
    let revision: i64 = db
        .query_one("SELECT revision FROM catalog_revision", &[])
        .await?
        .get(0);
    let mut records = Records::default();
    for row in db.query("SELECT name, body FROM setting", &[]).await? {
        let name: String = row.get(0);
        records.settings.insert(name, object(row.get(1)));
    }
    for kind in Kind::ALL {
        let table = kind.table();
        let rows = db
            .query(&format!("SELECT id, body FROM {table}"), &[])
            .await?;
        let of_kind = records.records.entry(kind).or_default();
        for row in rows {
            of_kind.insert(row.get(0), object(row.get(1)));
        }
    }
    let rows = db
        .query(
            "SELECT tool, version, status, definition FROM tool_version",
            &[],
        )
        .await?;
    for row in rows {
        let tool: String = row.get(0);
        let number: i32 = row.get(1);
        let status: String = row.get(2);
        let definition: Option<Value> = row.get(3);
        records.versions.insert(
            (tool, u32::try_from(number).unwrap_or(0)),
            Version {
                // The table's check allows only the four words.
                status: Status::from_name(&status).unwrap_or(Status::Draft),
                definition: definition.map(object),
            },
        );
    }
    Ok((revision, records))
}

/// Writes what differs between `before` and `after`: one statement per
/// table for what is upserted and one for what is deleted, whatever the
/// number of records (a whole catalog of 10,000 tools is a few statements).
pub(crate) async fn write(
    db: &impl GenericClient,
    before: &Records,
    after: &Records,
) -> Result<(), tokio_postgres::Error> {
    let mut names = Vec::new();
    let mut bodies = Vec::new();
    let mut gone = Vec::new();
    for name in SETTINGS {
        match (before.settings.get(name), after.settings.get(name)) {
            (old, Some(new)) if old != Some(new) => {
                names.push(name.to_owned());
                bodies.push(Value::Object(new.clone()));
            }
            (Some(_), None) => gone.push(name.to_owned()),
            _ => {}
        }
    }
    upsert(db, "setting", "name", &names, &bodies).await?;
    delete(db, "setting", "name", &gone).await?;
    for kind in Kind::ALL {
        let (mut ids, mut bodies, mut gone) = (Vec::new(), Vec::new(), Vec::new());
        for (id, body) in after.of(kind) {
            if before.get(kind, id) != Some(body) {
                ids.push(id.to_owned());
                bodies.push(Value::Object(body.clone()));
            }
        }
        for (id, _) in before.of(kind) {
            if after.get(kind, id).is_none() {
                gone.push(id.to_owned());
            }
        }
        upsert(db, kind.table(), "id", &ids, &bodies).await?;
        delete(db, kind.table(), "id", &gone).await?;
    }
    let (mut tools, mut numbers, mut statuses, mut definitions) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for ((tool, number), version) in &after.versions {
        if before.versions.get(&(tool.clone(), *number)) != Some(version) {
            tools.push(tool.clone());
            numbers.push(i32::try_from(*number).unwrap_or(i32::MAX));
            statuses.push(version.status.name().to_owned());
            definitions.push(version.definition.clone().map(Value::Object));
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
    let (mut tools, mut numbers) = (Vec::new(), Vec::new());
    for (tool, number) in before.versions.keys() {
        if !after.versions.contains_key(&(tool.clone(), *number)) {
            tools.push(tool.clone());
            numbers.push(i32::try_from(*number).unwrap_or(i32::MAX));
        }
    }
    if !tools.is_empty() {
        db.execute(
            "DELETE FROM tool_version WHERE (tool, version) IN (SELECT * FROM unnest($1::text[], $2::int[]))",
            &[&tools, &numbers],
        )
        .await?;
    }
    Ok(())
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

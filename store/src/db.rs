//! Reading and writing records in PostgreSQL.

use serde_json::Value;
use tokio_postgres::GenericClient;
use toolschema_runtime::catalog::Status;

use crate::records::{Body, Kind, Records, SETTINGS, Version, status_name};

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

/// Writes what differs between `before` and `after`.
pub(crate) async fn write(
    db: &impl GenericClient,
    before: &Records,
    after: &Records,
) -> Result<(), tokio_postgres::Error> {
    for name in SETTINGS {
        match (before.settings.get(name), after.settings.get(name)) {
            (old, Some(new)) if old != Some(new) => {
                db.execute(
                    "INSERT INTO setting (name, body) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET body = EXCLUDED.body",
                    &[&name, &Value::Object(new.clone())],
                )
                .await?;
            }
            (Some(_), None) => {
                db.execute("DELETE FROM setting WHERE name = $1", &[&name])
                    .await?;
            }
            _ => {}
        }
    }
    for kind in Kind::ALL {
        let table = kind.table();
        for (id, body) in after.of(kind) {
            if before.get(kind, id) != Some(body) {
                db.execute(
                    &format!("INSERT INTO {table} (id, body) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body"),
                    &[&id, &Value::Object(body.clone())],
                )
                .await?;
            }
        }
        for (id, _) in before.of(kind) {
            if after.get(kind, id).is_none() {
                db.execute(&format!("DELETE FROM {table} WHERE id = $1"), &[&id])
                    .await?;
            }
        }
    }
    for ((tool, number), version) in &after.versions {
        if before.versions.get(&(tool.clone(), *number)) != Some(version) {
            let number = i32::try_from(*number).unwrap_or(i32::MAX);
            let definition = version.definition.clone().map(Value::Object);
            db.execute(
                "INSERT INTO tool_version (tool, version, status, definition) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (tool, version) DO UPDATE SET status = EXCLUDED.status, definition = EXCLUDED.definition",
                &[tool, &number, &status_name(version.status), &definition],
            )
            .await?;
        }
    }
    for (tool, number) in before.versions.keys() {
        if !after.versions.contains_key(&(tool.clone(), *number)) {
            let number = i32::try_from(*number).unwrap_or(i32::MAX);
            db.execute(
                "DELETE FROM tool_version WHERE tool = $1 AND version = $2",
                &[tool, &number],
            )
            .await?;
        }
    }
    Ok(())
}

fn object(value: Value) -> Body {
    match value {
        Value::Object(map) => map,
        // The tables' checks allow only objects.
        _ => Body::new(),
    }
}

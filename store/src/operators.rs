//! The operators of the admin API: their keys and what a console session
//! checks of them.
//!
//! An operator is a name and the hash of one key. A console session keeps
//! the hash of the key it logged in with, and asks [`Store::operator_key`]
//! on every request whether the operator still holds it: removing an
//! operator ([`Store::remove_operator`]) or rotating its key
//! ([`Store::rotate_operator`]), from any process, ends its sessions.

use toolschema_catalog::hash_api_key;

use crate::{Refused, Store, StoreError};

impl Store {
    /// The hash of the key the operator `name` holds now (`sha256:` and
    /// hex digits), or `None` when there is no such operator.
    pub async fn operator_key(&self, name: &str) -> Result<Option<String>, StoreError> {
        let client = self.connect().await?;
        let row = client
            .query_opt("SELECT key_hash FROM operator WHERE name = $1", &[&name])
            .await?;
        Ok(row.map(|row| row.get(0)))
    }

    /// Gives the operator `name` a new key and returns it (shown once; only
    /// its hash is stored): the old key stops working at once, and the
    /// console sessions logged in with it end at their next request.
    pub async fn rotate_operator(&self, name: &str) -> Result<String, StoreError> {
        let client = self.connect().await?;
        let key = crate::action::new_api_key("tso_");
        let updated = client
            .execute(
                "UPDATE operator SET key_hash = $2 WHERE name = $1",
                &[&name, &hash_api_key(&key)],
            )
            .await?;
        match updated {
            0 => Err(StoreError::Refused(Refused::NotFound(format!(
                "there is no operator `{name}`"
            )))),
            _ => Ok(key),
        }
    }
}

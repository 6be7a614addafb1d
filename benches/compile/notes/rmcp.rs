//! The notes service with rmcp and schemars, as rmcp's documentation writes
//! a server: three tools over shared state, served over Streamable HTTP.
//! Built by `benches/compile/build_cost.py` beside `toolschema.rs`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A note.
#[derive(Serialize, JsonSchema, Clone)]
struct Note {
    /// Its id.
    id: uuid::Uuid,
    /// Its title.
    title: String,
    /// Its tags.
    tags: Vec<String>,
    /// When it was written.
    created: chrono::DateTime<chrono::Utc>,
}

/// Notes in the order asked.
#[derive(Serialize, JsonSchema)]
struct Notes {
    /// The notes.
    notes: Vec<Note>,
}

/// The order of a listing.
#[derive(Deserialize, JsonSchema, Default, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Order {
    /// Newest first.
    #[default]
    Newest,
    /// Oldest first.
    Oldest,
}

/// Adds a note.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddNote {
    /// The note's title, 1 to 40 characters.
    #[schemars(length(min = 1, max = 40))]
    title: String,
    /// Tags, at most five.
    #[serde(default)]
    #[schemars(length(max = 5))]
    tags: Vec<String>,
}

fn twenty() -> u32 {
    20
}

/// Lists notes.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListNotes {
    /// How many, from 1 to 50.
    #[serde(default = "twenty")]
    #[schemars(range(min = 1, max = 50))]
    limit: u32,
    /// Which first.
    #[serde(default)]
    order: Order,
}

/// Reads one note.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetNote {
    /// The note's id.
    id: uuid::Uuid,
}

#[derive(Clone, Default)]
struct Notebook {
    notes: Arc<Mutex<BTreeMap<u64, Note>>>,
}

#[tool_router(server_handler)]
impl Notebook {
    #[tool(name = "notes.add", description = "Adds a note.")]
    async fn add(&self, Parameters(add): Parameters<AddNote>) -> Result<Json<Note>, String> {
        let mut notes = self.notes.lock().map_err(|_| "the notebook is unavailable")?;
        let order = notes.keys().next_back().map_or(0, |last| last + 1);
        let note = Note {
            id: uuid::Uuid::from_u64_pair(1, order),
            title: add.title,
            tags: add.tags,
            created: chrono::Utc::now(),
        };
        notes.insert(order, note.clone());
        Ok(Json(note))
    }

    #[tool(name = "notes.list", description = "Lists notes.")]
    async fn list(&self, Parameters(list): Parameters<ListNotes>) -> Result<Json<Notes>, String> {
        let notes = self.notes.lock().map_err(|_| "the notebook is unavailable")?;
        let limit = usize::try_from(list.limit).unwrap_or(usize::MAX);
        let notes = match list.order {
            Order::Newest => notes.values().rev().take(limit).cloned().collect(),
            Order::Oldest => notes.values().take(limit).cloned().collect(),
        };
        Ok(Json(Notes { notes }))
    }

    #[tool(name = "notes.get", description = "Reads one note.")]
    async fn get(&self, Parameters(get): Parameters<GetNote>) -> Result<Json<Note>, String> {
        let notes = self.notes.lock().map_err(|_| "the notebook is unavailable")?;
        match notes.values().find(|note| note.id == get.id) {
            Some(note) => Ok(Json(note.clone())),
            None => Err(format!("there is no note {}", get.id)),
        }
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let address = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8080".into());
    let notebook = Notebook::default();
    let service = StreamableHttpService::new(
        move || Ok(notebook.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(address).await?;
    axum::serve(listener, router).await
}

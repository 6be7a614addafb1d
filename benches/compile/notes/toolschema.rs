//! The notes service with toolschema, as its README writes a server: three
//! tools over shared state, served over Streamable HTTP. Built by
//! `benches/compile/build_cost.py` beside `rmcp.rs`.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use toolschema::serve::Server;
use toolschema::{Context, Handler, Schema, Tool, ToolError};

/// A note.
#[derive(Schema, Serialize, Clone)]
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
#[derive(Schema, Serialize)]
struct Notes {
    /// The notes.
    notes: Vec<Note>,
}

/// The order of a listing.
#[derive(Schema, Deserialize, Default, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Order {
    /// Newest first.
    #[default]
    Newest,
    /// Oldest first.
    Oldest,
}

#[derive(Default)]
struct Notebook {
    notes: Mutex<BTreeMap<u64, Note>>,
}

impl Notebook {
    fn with_notes<T>(&self, work: impl FnOnce(&mut BTreeMap<u64, Note>) -> T) -> Result<T, ToolError> {
        let mut notes = self
            .notes
            .lock()
            .map_err(|_| ToolError::new("the notebook is unavailable"))?;
        Ok(work(&mut notes))
    }
}

/// Adds a note.
#[derive(Tool, Deserialize)]
#[tool(name = "notes.add", state = Notebook, output = Note)]
struct AddNote {
    /// The note's title, 1 to 40 characters.
    #[tool(min_length = 1, max_length = 40)]
    title: String,
    /// Tags, at most five.
    #[serde(default)]
    #[tool(max_items = 5)]
    tags: Vec<String>,
}

impl Handler for AddNote {
    async fn call(self, ctx: Context<Notebook>) -> Result<Note, ToolError> {
        ctx.state().with_notes(|notes| {
            let order = notes.keys().next_back().map_or(0, |last| last + 1);
            let note = Note {
                id: uuid::Uuid::from_u64_pair(1, order),
                title: self.title,
                tags: self.tags,
                created: chrono::Utc::now(),
            };
            notes.insert(order, note.clone());
            note
        })
    }
}

fn twenty() -> u32 {
    20
}

/// Lists notes.
#[derive(Tool, Deserialize)]
#[tool(name = "notes.list", state = Notebook, output = Notes, annotations(read_only))]
struct ListNotes {
    /// How many, from 1 to 50.
    #[serde(default = "twenty")]
    #[tool(minimum = 1, maximum = 50, default = 20)]
    limit: u32,
    /// Which first.
    #[serde(default)]
    order: Order,
}

impl Handler for ListNotes {
    async fn call(self, ctx: Context<Notebook>) -> Result<Notes, ToolError> {
        let limit = usize::try_from(self.limit).unwrap_or(usize::MAX);
        let notes = ctx.state().with_notes(|notes| match self.order {
            Order::Newest => notes.values().rev().take(limit).cloned().collect(),
            Order::Oldest => notes.values().take(limit).cloned().collect(),
        })?;
        Ok(Notes { notes })
    }
}

/// Reads one note.
#[derive(Tool, Deserialize)]
#[tool(name = "notes.get", state = Notebook, output = Note, annotations(read_only))]
struct GetNote {
    /// The note's id.
    id: uuid::Uuid,
}

impl Handler for GetNote {
    async fn call(self, ctx: Context<Notebook>) -> Result<Note, ToolError> {
        let found = ctx
            .state()
            .with_notes(|notes| notes.values().find(|note| note.id == self.id).cloned())?;
        found.ok_or_else(|| ToolError::new(format!("there is no note {}", self.id)))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:8080".into());
    let server = Server::new("notes", "1.0.0")
        .state(Notebook::default())
        .tool::<AddNote>()
        .tool::<ListNotes>()
        .tool::<GetNote>()
        .bind_http(&address)
        .await?;
    server.run().await?;
    Ok(())
}

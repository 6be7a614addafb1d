//! An rmcp server over stdio whose tools are derived by toolschema: the
//! listing from the derive, every call's arguments checked against it, a
//! refusal an `isError` result naming each field. Driven by the official
//! Python SDK in CI (tests/clients/test_rmcp.py).
//!
//! ```sh
//! cargo run -p toolschema-rmcp --example notebook
//! ```

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rmcp::model::CallToolResult;
use rmcp::{ServiceExt, tool, tool_router};
use serde::{Deserialize, Serialize};
use toolschema::{Schema, Tool};
use toolschema_rmcp::{Args, Refused, answer, input_schema, output_schema};

/// Adds a note to the notebook.
#[derive(Tool, Deserialize)]
#[tool(name = "notes.add", output = Note)]
struct AddNote {
    /// The note's title, 1 to 40 characters.
    #[tool(min_length = 1, max_length = 40)]
    title: String,
    /// Tags, at most five.
    #[serde(default)]
    #[tool(max_items = 5)]
    tags: Vec<String>,
}

/// Lists the notes, newest first.
#[derive(Tool, Deserialize)]
#[tool(name = "notes.list", output = Notes)]
struct ListNotes {
    /// How many, from 1 to 50.
    #[tool(minimum = 1, maximum = 50)]
    limit: u32,
}

/// Reads one note.
#[derive(Tool, Deserialize)]
#[tool(name = "notes.get", output = Note)]
struct GetNote {
    /// The note's id, as `notes.add` gave it.
    id: uuid::Uuid,
}

/// A note.
#[derive(Schema, Serialize, Clone)]
struct Note {
    /// Its id.
    id: uuid::Uuid,
    /// Its title.
    title: String,
    /// Its tags.
    tags: Vec<String>,
}

/// Notes, newest first.
#[derive(Schema, Serialize)]
struct Notes {
    /// The notes.
    notes: Vec<Note>,
}

/// The server's own state, as an rmcp server holds it.
#[derive(Clone, Default)]
struct Notebook {
    notes: Arc<Mutex<BTreeMap<u64, Note>>>,
}

#[tool_router(server_handler)]
impl Notebook {
    #[tool(
        name = "notes.add",
        description = "Adds a note to the notebook.",
        input_schema = input_schema::<AddNote>(),
        output_schema = output_schema::<AddNote>().expect("an output")
    )]
    async fn add(&self, args: Args<AddNote>) -> Result<CallToolResult, Refused> {
        let add = args.into_inner()?;
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        let order = notes.keys().next_back().map_or(0, |last| last + 1);
        let note = Note {
            id: uuid::Uuid::from_u64_pair(0x746f_6f6c_7363_6865, order),
            title: add.title,
            tags: add.tags,
        };
        notes.insert(order, note.clone());
        answer::<AddNote>(note)
    }

    #[tool(
        name = "notes.list",
        description = "Lists the notes, newest first.",
        input_schema = input_schema::<ListNotes>(),
        output_schema = output_schema::<ListNotes>().expect("an output")
    )]
    async fn list(&self, args: Args<ListNotes>) -> Result<CallToolResult, Refused> {
        let list = args.into_inner()?;
        let notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        let limit = usize::try_from(list.limit).unwrap_or(usize::MAX);
        let notes = notes.values().rev().take(limit).cloned().collect();
        answer::<ListNotes>(Notes { notes })
    }

    #[tool(
        name = "notes.get",
        description = "Reads one note.",
        input_schema = input_schema::<GetNote>(),
        output_schema = output_schema::<GetNote>().expect("an output")
    )]
    async fn get(&self, args: Args<GetNote>) -> Result<CallToolResult, Refused> {
        let get = args.into_inner()?;
        let notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        match notes.values().find(|note| note.id == get.id) {
            Some(note) => answer::<GetNote>(note.clone()),
            None => Ok(CallToolResult::error(vec![
                rmcp::model::ContentBlock::text(format!(
                    "there is no note {}; `notes.list` lists them",
                    get.id
                )),
            ])),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let running = Notebook::default()
        .serve((tokio::io::stdin(), tokio::io::stdout()))
        .await?;
    running.waiting().await?;
    Ok(())
}

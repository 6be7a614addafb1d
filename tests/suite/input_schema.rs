//! Tools whose input schema is a file written by hand
//! (`#[tool(input_schema = "...")]`): advertised as written, every mode
//! derived from it, arguments validated against it, and the files that
//! cannot serve refused when the tool is registered.

use serde::Deserialize;
use serde_json::{Value, json};
use toolschema::Tool;
use toolschema::call::{
    CallError, Content, Context, Handler, Registry, RegistryError, ToolError, ToolResult,
};
use toolschema::project::{HINT_FIELD, Mode, project_tool};
use toolschema::validate::Rule;

use toolschema_test_support::block_on;

/// Books a room.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "hotel.book", input_schema = "schemas/booking.json")]
pub struct BookRoom {
    pub room: String,
    pub guests: u8,
    pub phone: Option<String>,
    pub dates: (String, String),
}

impl Handler for BookRoom {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        let phone = self.phone.as_deref().unwrap_or("no phone");
        Ok(ToolResult::text(format!(
            "{} for {} from {} to {} ({phone})",
            self.room, self.guests, self.dates.0, self.dates.1
        )))
    }
}

/// Books a room whose code is defined nowhere.
#[derive(Tool, Deserialize)]
#[tool(name = "hotel.dangling", input_schema = "schemas/dangling.json")]
pub struct Dangling {
    pub room: Option<String>,
}

impl Handler for Dangling {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(self.room.unwrap_or_default()))
    }
}

/// Books several rooms, each described by the hand-written schema.
#[derive(Tool, Deserialize)]
#[tool(name = "hotel.book-many")]
pub struct BookMany {
    pub bookings: Vec<BookRoom>,
}

impl Handler for BookMany {
    async fn call(self, _ctx: Context) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text(self.bookings.len().to_string()))
    }
}

const FILE: &str = include_str!("schemas/booking.json");

fn registry() -> Registry {
    let mut registry = Registry::new();
    registry
        .register::<BookRoom>()
        .expect("a schema that compiles");
    registry
}

#[test]
fn the_file_is_advertised_as_written_in_full_mode() {
    let listed = project_tool(BookRoom::TOOL, Mode::Full);
    let file: Value = serde_json::from_str(FILE).expect("the file is JSON");
    assert_eq!(listed.to_value()["inputSchema"], file);
    // In the file's own key order, not sorted.
    let text = listed.to_compact_string();
    let order: Vec<usize> = [
        "\"room\"",
        "\"guests\"",
        "\"phone\"",
        "\"dates\"",
        "\"if\"",
        "\"$defs\"",
    ]
    .iter()
    .map(|key| text.find(key).unwrap_or_else(|| panic!("{key} in {text}")))
    .collect();
    assert!(order.is_sorted(), "{order:?} in {text}");
    assert_eq!(listed.to_value()["description"], "Books a room.");
}

#[test]
fn data_structure_only_keeps_the_shape_and_drops_the_words() {
    let input =
        project_tool(BookRoom::TOOL, Mode::DataStructureOnly).to_value()["inputSchema"].clone();
    assert_eq!(input["then"], json!({"required": ["phone"]}));
    // A condition is kept whole: reduced, it would hold for every group.
    assert_eq!(
        input["if"],
        json!({"properties": {"guests": {"minimum": 5}}})
    );
    assert_eq!(
        input["properties"]["room"],
        json!({"$ref": "#/$defs/roomCode"})
    );
    assert_eq!(input["$defs"]["roomCode"], json!({"type": "string"}));
    assert_eq!(input["properties"]["dates"]["items"], json!(false));
    assert!(input["properties"][HINT_FIELD].is_object());
    for dropped in ["description", "$schema"] {
        assert!(input.get(dropped).is_none(), "{dropped} in {input}");
    }
    assert!(input["properties"]["phone"].get("description").is_none());
}

#[test]
fn arguments_are_validated_against_the_file() {
    let registry = registry();
    let booked = block_on(registry.call(
        "hotel.book",
        json!({"room": "B204", "guests": 2, "dates": ["2026-12-01", "2026-12-03"]}),
    ))
    .expect("valid arguments");
    assert_eq!(
        booked.content(),
        [Content::text(
            "B204 for 2 from 2026-12-01 to 2026-12-03 (no phone)"
        )]
    );

    // A group without a phone (if/then), a room code off the pattern
    // (through $ref), a date that is not one (format in prefixItems), an
    // argument the file does not list.
    let refused = block_on(registry.call(
        "hotel.book",
        json!({"room": "b204", "guests": 6, "dates": ["2026-12-01", "soon"], "pets": true}),
    ));
    let Err(CallError::InvalidArguments(errors)) = refused else {
        panic!("expected invalid arguments, got {refused:?}");
    };
    let mut found: Vec<(&str, Rule)> = errors.iter().map(|v| (v.path(), v.rule())).collect();
    found.sort_by_key(|(path, _)| *path);
    assert_eq!(
        found,
        [
            ("/dates/1", Rule::Format),
            ("/pets", Rule::UnknownProperty),
            ("/phone", Rule::Required),
            ("/room", Rule::Pattern),
        ],
        "{errors}"
    );
}

#[test]
fn a_schema_that_does_not_compile_is_refused_at_registration() {
    let mut registry = Registry::new();
    let refused = registry
        .register::<Dangling>()
        .map(drop)
        .expect_err("dangling $ref");
    let RegistryError::InvalidSchema {
        ref name,
        ref problem,
    } = refused
    else {
        panic!("expected an invalid schema, got {refused:?}");
    };
    assert_eq!(name, "hotel.dangling");
    assert!(problem.contains("nowhere"), "{problem}");
    assert!(
        refused.to_string().starts_with("tool `hotel.dangling`"),
        "{refused}"
    );
    assert_eq!(registry.tools().count(), 0, "nothing half-registered");
}

#[test]
fn a_hand_written_schema_inside_another_is_refused_at_registration() {
    let mut registry = Registry::new();
    let refused = registry
        .register::<BookMany>()
        .map(drop)
        .expect_err("nested");
    assert!(
        matches!(
            refused,
            RegistryError::InvalidSchema { ref name, .. } if name == "hotel.book-many"
        ),
        "{refused:?}"
    );
    assert!(
        refused.to_string().contains("only as a tool's arguments"),
        "{refused}"
    );
}

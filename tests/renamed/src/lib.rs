//! A crate that depends on toolschema under another name, `ts`: the derives
//! reach the runtime through `#[tool(crate = "ts")]`.

use serde::Deserialize;

/// Where to send a parcel.
#[derive(ts::Schema, Deserialize)]
#[tool(crate = "ts")]
pub struct Destination {
    /// The recipient's name.
    pub name: String,
    /// The postal code.
    pub postal_code: String,
}

/// Books a parcel pickup.
#[derive(ts::Tool, Deserialize)]
#[tool(crate = "ts", name = "shipping.book-pickup", output = Destination)]
pub struct BookPickup {
    /// Where the parcel goes.
    pub to: Destination,
    /// How many parcels.
    #[tool(minimum = 1, maximum = 20)]
    pub parcels: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derives_resolve_through_the_renamed_crate() {
        let tool = ts::tool_json::<BookPickup>();
        assert_eq!(tool["name"], "shipping.book-pickup");
        assert_eq!(
            tool["inputSchema"]["properties"]["to"]["properties"]["postal_code"]["type"],
            "string"
        );
        assert_eq!(tool["inputSchema"]["properties"]["parcels"]["maximum"], 20);
        assert_eq!(
            tool["outputSchema"]["required"],
            serde_json::json!(["name", "postal_code"])
        );
    }
}

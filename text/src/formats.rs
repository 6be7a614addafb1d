//! The formats JSON Schema 2020-12 defines: the only ones toolschema
//! advertises, whether a derive or a configured field asks for one.

/// The standard formats of JSON Schema 2020-12.
///
/// ```
/// use toolschema_text::formats::FORMATS;
///
/// assert!(FORMATS.contains(&"uuid"));
/// assert!(!FORMATS.contains(&"int64"));
/// ```
pub const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

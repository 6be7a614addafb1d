//! XSD simple types as JSON Schema says them: the built-in ones, and the
//! restrictions of a document's own (enumerations, patterns, lengths,
//! bounds) where JSON Schema says the same.

use super::types::{Role, Types};
use super::{MAX_DEPTH, XSD, child, local, typed};
use toolschema_gateway::xml::Element;
use toolschema_runtime::model::Number;
use toolschema_runtime::render::{Json as Value, Object as Map};

/// `{"type": kind}` with the bounds given.
fn bounded(kind: &'static str, minimum: Option<i64>, maximum: Option<i64>) -> Map {
    let mut map = typed(kind);
    if let Some(n) = minimum {
        map.insert("minimum", int(n));
    }
    if let Some(n) = maximum {
        map.insert("maximum", int(n));
    }
    map
}

/// A whole number as JSON holds it.
pub(super) fn int(n: i64) -> Number {
    match u64::try_from(n) {
        Ok(n) => Number::UInt(n),
        Err(_) => Number::Int(n),
    }
}

/// Base64 text (XSD's `base64Binary` without its optional spaces).
const BASE64: &str = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$";

/// An XSD built-in simple type, as JSON Schema says it.
fn builtin(name: &str, role: Role) -> Option<Map> {
    let with_format = |format: &'static str| {
        let mut map = typed("string");
        if role == Role::Argument {
            map.insert("format", format);
        }
        map
    };
    Some(match name {
        "string" | "normalizedString" | "token" | "Name" | "NCName" | "QName" | "NMTOKEN"
        | "ID" | "IDREF" | "language" | "gYear" | "gYearMonth" | "gMonth" | "gMonthDay"
        | "gDay" | "anySimpleType" => typed("string"),
        // Binary data as text: said by a pattern where it is sent.
        "base64Binary" | "hexBinary" => {
            let mut map = typed("string");
            if role == Role::Argument {
                map.insert(
                    "pattern",
                    if name == "base64Binary" {
                        BASE64
                    } else {
                        "^(?:[0-9A-Fa-f]{2})*$"
                    },
                );
            }
            map
        }
        "anyURI" => with_format("uri"),
        "date" => with_format("date"),
        "dateTime" => with_format("date-time"),
        "time" => with_format("time"),
        "duration" => with_format("duration"),
        "boolean" => typed("boolean"),
        "decimal" | "float" | "double" => typed("number"),
        "integer" | "long" => typed("integer"),
        "int" => bounded("integer", Some(i32::MIN.into()), Some(i32::MAX.into())),
        "short" => bounded("integer", Some(i16::MIN.into()), Some(i16::MAX.into())),
        "byte" => bounded("integer", Some(i8::MIN.into()), Some(i8::MAX.into())),
        "unsignedInt" => bounded("integer", Some(0), Some(u32::MAX.into())),
        "unsignedShort" => bounded("integer", Some(0), Some(u16::MAX.into())),
        "unsignedByte" => bounded("integer", Some(0), Some(u8::MAX.into())),
        "unsignedLong" | "nonNegativeInteger" => bounded("integer", Some(0), None),
        "positiveInteger" => bounded("integer", Some(1), None),
        "nonPositiveInteger" => bounded("integer", None, Some(0)),
        "negativeInteger" => bounded("integer", None, Some(-1)),
        _ => return None,
    })
}

/// XSD's regular expressions are anchored and have escapes of their own;
/// those that JSON Schema's cannot say are left out.
pub(super) fn pattern(xsd: &str) -> Option<String> {
    let foreign = ["\\i", "\\I", "\\c", "\\C", "\\p{Is"];
    if foreign.iter().any(|f| xsd.contains(f)) || subtracts(xsd) {
        return None;
    }
    Some(format!("^(?:{xsd})$"))
}

/// Whether a pattern subtracts a class from a class (`[a-z-[aeiou]]`).
fn subtracts(xsd: &str) -> bool {
    let mut in_class = false;
    let mut chars = xsd.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => in_class = true,
            ']' => in_class = false,
            '-' if in_class && chars.peek() == Some(&'[') => return true,
            _ => {}
        }
    }
    false
}

/// `text` with the characters a regular expression reads as syntax
/// escaped.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\^$.|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Types<'_> {
    /// An `xsd:list`: its items, separated by spaces, as text. A list of
    /// enumerated items that is sent says them by a pattern (`A B`); any
    /// other list is plain text.
    fn list(&self, list: &Element<'_>, role: Role, depth: usize) -> Result<Map, String> {
        let item = match (list.attribute("itemType"), child(list, XSD, "simpleType")) {
            (Some(kind), _) => self.simple_named(local(kind), role, depth)?,
            (None, Some(inner)) => self.simple_type(inner, role, depth + 1)?,
            (None, None) => typed("string"),
        };
        let mut map = typed("string");
        if role == Role::Argument
            && let Some(Value::Array(values)) = item.get("enum")
        {
            let words: Vec<String> = values
                .iter()
                .filter_map(|value| match value {
                    Value::String(word) => Some(escaped(word)),
                    _ => None,
                })
                .collect();
            if !words.is_empty() {
                let one = words.join("|");
                map.insert("pattern", format!("^(?:{one})(?: (?:{one}))*$"));
            }
        }
        Ok(map)
    }

    /// A named simple type (the schema's own, else a built-in one).
    pub(super) fn simple_named(&self, name: &str, role: Role, depth: usize) -> Result<Map, String> {
        if let Some(simple) = self.simple.get(name) {
            return self.simple_type(simple, role, depth + 1);
        }
        builtin(name, role).ok_or_else(|| match name {
            "anyType" => "takes any content (`xsd:anyType`)".to_owned(),
            _ => format!("has the type `{name}`, which the document does not define"),
        })
    }

    /// A `simpleType`: its base and the restrictions JSON Schema can say.
    pub(super) fn simple_type(
        &self,
        simple: &Element<'_>,
        role: Role,
        depth: usize,
    ) -> Result<Map, String> {
        if depth > MAX_DEPTH {
            return Err("has simple types nested too deep".to_owned());
        }
        if let Some(list) = child(simple, XSD, "list") {
            return self.list(list, role, depth);
        }
        let Some(restriction) = child(simple, XSD, "restriction") else {
            // A union is written as text.
            return Ok(typed("string"));
        };
        let mut map = match (
            restriction.attribute("base"),
            child(restriction, XSD, "simpleType"),
        ) {
            (Some(base), _) => self.simple_named(local(base), role, depth)?,
            (None, Some(inner)) => self.simple_type(inner, role, depth + 1)?,
            (None, None) => typed("string"),
        };
        let kind = match map.get("type") {
            Some(Value::String(kind)) => kind.to_string(),
            _ => "string".to_owned(),
        };
        let mut values = Vec::new();
        for facet in &restriction.children {
            let Some(value) = facet.attribute("value") else {
                continue;
            };
            match &*facet.name {
                "enumeration" => values.push(Value::from(value.to_owned())),
                "pattern" if kind == "string" => {
                    if let Some(pattern) = pattern(value) {
                        map.insert("pattern", pattern);
                    }
                }
                "length" | "minLength" | "maxLength" if kind == "string" => {
                    if let Ok(n) = value.parse::<u64>() {
                        if &*facet.name != "maxLength" {
                            map.insert("minLength", n);
                        }
                        if &*facet.name != "minLength" {
                            map.insert("maxLength", n);
                        }
                    }
                }
                "minInclusive" | "maxInclusive" | "minExclusive" | "maxExclusive"
                    if kind == "integer" || kind == "number" =>
                {
                    let key = if facet.name.starts_with("min") {
                        "minimum"
                    } else {
                        "maximum"
                    };
                    let exclusive = facet.name.ends_with("Exclusive");
                    if let Ok(n) = value.parse::<i64>() {
                        // An exclusive bound of an integer is the next one in.
                        let n = match (exclusive, key) {
                            (false, _) => Some(n),
                            (true, _) if kind != "integer" => None,
                            (true, "minimum") => n.checked_add(1),
                            (true, _) => n.checked_sub(1),
                        };
                        if let Some(n) = n {
                            map.insert(key, int(n));
                        }
                    } else if let Ok(f) = value.parse::<f64>()
                        && kind == "number"
                        && !exclusive
                        && f.is_finite()
                    {
                        map.insert(key, Number::Float(f));
                    }
                }
                _ => {}
            }
        }
        if !values.is_empty() && kind == "string" {
            map.insert("enum", Value::Array(values));
        }
        Ok(map)
    }
}

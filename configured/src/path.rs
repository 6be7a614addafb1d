//! Field paths: where a value stands in a JSON document, through nesting
//! (`customer.address.zip`) and arrays (`items[].sku`, `[].id` for the
//! items of a document that is an array).

use core::fmt;

use serde_json::{Map, Value};

use toolschema_runtime::model::Text;
use toolschema_runtime::render::{Json, Object};

/// A JSON document a path walks: `serde_json`'s (arguments, SOAP answers)
/// or the runtime's own tree (a REST answer, read only where the mapping
/// looks, and the result built from it).
pub trait Document: Clone {
    /// `null`.
    fn null() -> Self;
    /// Whether this is `null`.
    fn is_null(&self) -> bool;
    /// Whether this is an object.
    fn is_object(&self) -> bool;
    /// The member `name` of an object.
    fn member(&self, name: &str) -> Option<&Self>;
    /// The items of an array.
    fn items(&self) -> Option<&[Self]>;
    /// Makes `null` an empty object.
    fn become_object(&mut self);
    /// Makes `null` an empty array.
    fn become_array(&mut self);
    /// The member `name` of an object, `null` when it was absent; `None`
    /// when this is not an object.
    fn member_mut(&mut self, name: &Text) -> Option<&mut Self>;
    /// The items of an array, to change.
    fn items_mut(&mut self) -> Option<&mut Vec<Self>>;
}

impl Document for Value {
    fn null() -> Value {
        Value::Null
    }

    fn is_null(&self) -> bool {
        Value::is_null(self)
    }

    fn is_object(&self) -> bool {
        Value::is_object(self)
    }

    fn member(&self, name: &str) -> Option<&Value> {
        self.get(name)
    }

    fn items(&self) -> Option<&[Value]> {
        self.as_array().map(Vec::as_slice)
    }

    fn become_object(&mut self) {
        if self.is_null() {
            *self = Value::Object(Map::new());
        }
    }

    fn become_array(&mut self) {
        if self.is_null() {
            *self = Value::Array(Vec::new());
        }
    }

    fn member_mut(&mut self, name: &Text) -> Option<&mut Value> {
        let Value::Object(map) = self else {
            return None;
        };
        // Looked up first: the entry API would copy the name every time.
        if !map.contains_key(&**name) {
            map.insert(name.to_string(), Value::Null);
        }
        map.get_mut(&**name)
    }

    fn items_mut(&mut self) -> Option<&mut Vec<Value>> {
        self.as_array_mut()
    }
}

impl Document for Json {
    fn null() -> Json {
        Json::Null
    }

    fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    fn member(&self, name: &str) -> Option<&Json> {
        self.as_object()?.get(name)
    }

    fn items(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    fn become_object(&mut self) {
        if self.is_null() {
            *self = Json::Object(Object::new());
        }
    }

    fn become_array(&mut self) {
        if self.is_null() {
            *self = Json::Array(Vec::new());
        }
    }

    fn member_mut(&mut self, name: &Text) -> Option<&mut Json> {
        let object = self.as_object_mut()?;
        if object.get(name).is_none() {
            // The name shared, not copied.
            object.insert(name.clone(), Json::Null);
        }
        object.get_mut(name)
    }

    fn items_mut(&mut self) -> Option<&mut Vec<Json>> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }
}

/// One step of a [`FieldPath`]: a property, then (with `[]`) each item of
/// the array it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The property name; empty for the document itself (`[]` first).
    /// Shared: every object a mapping writes names its members with it.
    pub name: Text,
    /// Whether the step goes on into each item of an array.
    pub each: bool,
}

/// The source path of the whole document.
pub const WHOLE: &str = ".";

/// A path through a JSON document, as written in the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath {
    text: String,
    steps: Vec<Step>,
}

/// Why a path cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// The path is empty.
    Empty,
    /// A step between dots is empty.
    EmptyStep,
    /// A step is not a name.
    BadName(String),
    /// `[]` alone stands elsewhere than first.
    RootArrayNotFirst,
    /// An exposed path starts with `[]` (the arguments and the result are
    /// objects).
    NoRootArray,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::Empty => f.write_str("the path is empty"),
            PathError::EmptyStep => {
                f.write_str("the path has an empty step (two dots in a row, or a dot at an end)")
            }
            PathError::BadName(name) => write!(
                f,
                "`{name}` is not a name a client can be shown; use letters, digits, `_` and `-`"
            ),
            PathError::RootArrayNotFirst => {
                f.write_str("`[]` alone stands only first, for the items of a document that is an array")
            }
            PathError::NoRootArray => f.write_str(
                "an exposed path starts with a property name (the arguments and the result are objects)",
            ),
        }
    }
}

impl FieldPath {
    /// Reads a source path: any property names, `[]` after a name for
    /// each item of its array, `[]` first for a document that is an
    /// array, and `.` alone for the whole document (a body that is one
    /// value: a string, a list, one of several shapes).
    pub fn source(text: &str) -> Result<FieldPath, PathError> {
        if text == WHOLE {
            return Ok(FieldPath {
                text: WHOLE.to_owned(),
                steps: Vec::new(),
            });
        }
        FieldPath::parse(text, |_| true, true)
    }

    /// Whether the path is the whole document (`.`).
    pub fn is_whole(&self) -> bool {
        self.steps.is_empty()
    }

    /// Reads the source of a value that goes in the query, a header or the
    /// path: one name, taken as written (`filter.name`, `ids[]` are names
    /// there, not paths).
    pub fn name(text: &str) -> Result<FieldPath, PathError> {
        if text.is_empty() {
            return Err(PathError::Empty);
        }
        Ok(FieldPath {
            text: text.to_owned(),
            steps: vec![Step {
                name: Text::from(text.to_owned()),
                each: false,
            }],
        })
    }

    /// Reads an exposed path: names a client can be shown (letters,
    /// digits, `_`, `-`), each maybe followed by `[]`.
    pub fn exposed(text: &str) -> Result<FieldPath, PathError> {
        let is_name = |name: &str| {
            name.len() <= 64
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        };
        FieldPath::parse(text, is_name, false)
    }

    fn parse(
        text: &str,
        is_name: impl Fn(&str) -> bool,
        root_array: bool,
    ) -> Result<FieldPath, PathError> {
        if text.is_empty() {
            return Err(PathError::Empty);
        }
        let mut steps = Vec::new();
        for (i, part) in text.split('.').enumerate() {
            let (name, each) = match part.strip_suffix("[]") {
                Some(name) => (name, true),
                None => (part, false),
            };
            if name.is_empty() {
                if !each {
                    return Err(PathError::EmptyStep);
                }
                if i > 0 {
                    return Err(PathError::RootArrayNotFirst);
                }
                if !root_array {
                    return Err(PathError::NoRootArray);
                }
            } else if name.contains(['[', ']']) || !is_name(name) {
                return Err(PathError::BadName(name.to_owned()));
            }
            steps.push(Step {
                name: Text::from(name.to_owned()),
                each,
            });
        }
        Ok(FieldPath {
            text: text.to_owned(),
            steps,
        })
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Its steps, in order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// How many arrays the path goes into.
    pub fn arrays(&self) -> usize {
        self.steps.iter().filter(|s| s.each).count()
    }

    /// Whether the path is one property, with no array.
    pub fn is_single_name(&self) -> bool {
        self.steps.len() == 1 && !self.steps[0].each
    }

    /// The path up to and including its `n`-th array (counted from 1).
    pub fn through_array(&self, n: usize) -> FieldPath {
        let mut seen = 0;
        let mut steps = Vec::new();
        for step in &self.steps {
            steps.push(step.clone());
            if step.each {
                seen += 1;
                if seen == n {
                    break;
                }
            }
        }
        FieldPath::from_steps(steps)
    }

    /// The path's first `len` steps.
    pub fn prefix(&self, len: usize) -> FieldPath {
        FieldPath::from_steps(self.steps.iter().take(len).cloned().collect())
    }

    fn from_steps(steps: Vec<Step>) -> FieldPath {
        let text = steps
            .iter()
            .map(|s| format!("{}{}", s.name, if s.each { "[]" } else { "" }))
            .collect::<Vec<_>>()
            .join(".");
        FieldPath { text, steps }
    }

    /// Every value at this path in `document`, with the index taken in
    /// each array on the way. Absent values and `null` are skipped.
    pub fn get_all<'a, D: Document>(&self, document: &'a D) -> Vec<(Vec<usize>, &'a D)> {
        let mut out = Vec::new();
        self.for_each(document, |indices, value| {
            out.push((indices.to_vec(), value))
        });
        out
    }

    /// Calls `visit` with every value at this path in `document` and the
    /// index taken in each array on the way. Absent values and `null` are
    /// skipped.
    pub fn for_each<'a, D: Document>(
        &self,
        document: &'a D,
        mut visit: impl FnMut(&[usize], &'a D),
    ) {
        collect(&self.steps, document, &mut Vec::new(), &mut visit);
    }

    /// Calls `visit` with each array the path's last `[]` goes into (a
    /// path that ends with `[]`), with the indices taken on the way.
    pub fn for_each_array<'a, D: Document>(
        &self,
        document: &'a D,
        mut visit: impl FnMut(&[usize], &'a D),
    ) {
        let Some((last, init)) = self.steps.split_last() else {
            return;
        };
        collect(init, document, &mut Vec::new(), &mut |indices, parent| {
            let value = if last.name.is_empty() {
                Some(parent)
            } else {
                parent.member(&last.name)
            };
            if let Some(array) = value
                && array.items().is_some()
            {
                visit(indices, array);
            }
        });
    }

    /// Makes the array the path's last `[]` goes into an empty one if
    /// nothing stands there yet, creating what leads to it: an empty list
    /// stays a list.
    pub fn ensure_array<D: Document>(&self, document: &mut D, indices: &[usize]) {
        let Some((last, init)) = self.steps.split_last() else {
            return;
        };
        let Some(parent) = slot(init, document, indices) else {
            return;
        };
        let place = if last.name.is_empty() {
            parent
        } else {
            parent.become_object();
            match parent.member_mut(&last.name) {
                Some(place) => place,
                None => return,
            }
        };
        place.become_array();
    }

    /// Whether the path ends with `[]`.
    pub fn ends_in_array(&self) -> bool {
        self.steps.last().is_some_and(|s| s.each)
    }

    /// Makes the value at this path an empty object if nothing stands
    /// there yet, creating what leads to it.
    pub fn ensure_object<D: Document>(&self, document: &mut D, indices: &[usize]) {
        if let Some(slot) = slot(&self.steps, document, indices) {
            slot.become_object();
        }
    }

    /// Writes `value` at this path in `document`, taking in each array the
    /// index `indices` gives, and creating objects and arrays on the way.
    /// `false` when something else already stands on the way.
    pub fn set<D: Document>(&self, document: &mut D, indices: &[usize], value: D) -> bool {
        match slot(&self.steps, document, indices) {
            Some(slot) => {
                *slot = value;
                true
            }
            None => false,
        }
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn collect<'a, D: Document>(
    steps: &[Step],
    value: &'a D,
    indices: &mut Vec<usize>,
    out: &mut impl FnMut(&[usize], &'a D),
) {
    let Some((step, rest)) = steps.split_first() else {
        if !value.is_null() {
            out(indices, value);
        }
        return;
    };
    let value = if step.name.is_empty() {
        value
    } else {
        match value.member(&step.name) {
            Some(inner) => inner,
            None => return,
        }
    };
    if !step.each {
        return collect(rest, value, indices, out);
    }
    if let Some(items) = value.items() {
        for (i, item) in items.iter().enumerate() {
            indices.push(i);
            collect(rest, item, indices, out);
            indices.pop();
        }
    }
}

/// The place at `steps` in `slot`, created on the way; `None` when
/// something other than an object or array stands on the way.
fn slot<'a, D: Document>(steps: &[Step], slot: &'a mut D, indices: &[usize]) -> Option<&'a mut D> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(slot);
    };
    let slot = if step.name.is_empty() {
        slot
    } else {
        slot.become_object();
        slot.member_mut(&step.name)?
    };
    if !step.each {
        return self::slot(rest, slot, indices);
    }
    let (&index, indices) = indices.split_first()?;
    slot.become_array();
    let items = slot.items_mut()?;
    if items.len() <= index {
        items.resize(index + 1, D::null());
    }
    self::slot(rest, &mut items[index], indices)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_read_and_refuse_as_documented() {
        let path = FieldPath::source("customer.addresses[].zip").expect("valid");
        assert_eq!(path.arrays(), 1);
        assert!(FieldPath::source("[].id").is_ok());
        assert_eq!(FieldPath::exposed("[].id"), Err(PathError::NoRootArray));
        assert_eq!(
            FieldPath::source("a.[].b"),
            Err(PathError::RootArrayNotFirst)
        );
        assert_eq!(FieldPath::source("a..b"), Err(PathError::EmptyStep));
        assert_eq!(
            FieldPath::exposed("a b"),
            Err(PathError::BadName("a b".to_owned()))
        );
        assert_eq!(FieldPath::exposed(""), Err(PathError::Empty));
    }

    #[test]
    fn values_are_found_and_written_through_arrays() {
        let document = json!({"items": [{"sku": "a"}, {"other": 1}, {"sku": "c"}]});
        let path = FieldPath::source("items[].sku").expect("valid");
        let found = path.get_all(&document);
        assert_eq!(found, [(vec![0], &json!("a")), (vec![2], &json!("c"))]);

        let target = FieldPath::exposed("lines[].code").expect("valid");
        let mut out = Value::Null;
        for (indices, value) in found {
            assert!(target.set(&mut out, &indices, value.clone()));
        }
        assert_eq!(out, json!({"lines": [{"code": "a"}, null, {"code": "c"}]}));
        // A scalar in the way is reported, not overwritten.
        let mut scalar = json!({"lines": 3});
        assert!(!target.set(&mut scalar, &[0], json!("x")));
    }

    #[test]
    fn a_document_that_is_an_array_is_read_from_its_items() {
        let document = json!([{"id": 1}, {"id": 2}]);
        let path = FieldPath::source("[].id").expect("valid");
        let ids: Vec<&Value> = path
            .get_all(&document)
            .into_iter()
            .map(|(_, v)| v)
            .collect();
        assert_eq!(ids, [&json!(1), &json!(2)]);
        assert_eq!(path.through_array(1).as_str(), "[]");
    }
}

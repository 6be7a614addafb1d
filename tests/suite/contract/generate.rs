//! Values drawn from a JSON Schema, and mutations of them: near misses that
//! probe each keyword's edge (a whole number written as a float, a bound
//! crossed by one, a key dropped or added, a format's corner cases).

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{Map, Number, Value, json};

/// How deep drawn values nest before only the smallest value is drawn.
const DEEP: usize = 5;

pub struct Generator<'a> {
    root: &'a Value,
    runner: &'a mut TestRunner,
}

impl<'a> Generator<'a> {
    pub fn new(root: &'a Value, runner: &'a mut TestRunner) -> Self {
        Generator { root, runner }
    }

    fn pick<S: Strategy>(&mut self, strategy: S) -> S::Value {
        strategy
            .new_tree(self.runner)
            .expect("the strategy draws")
            .current()
    }

    fn below(&mut self, n: usize) -> usize {
        if n <= 1 { 0 } else { self.pick(0..n) }
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn one_of<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }

    /// `schema` with its local `$ref` followed.
    fn resolve(&self, mut schema: &'a Value) -> &'a Value {
        for _ in 0..32 {
            let Some(pointer) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
            else {
                break;
            };
            schema = self.root.pointer(pointer).expect("a local $ref resolves");
        }
        schema
    }

    /// A value `schema` should accept (it may not, at formats' edges).
    pub fn value(&mut self, schema: &'a Value, depth: usize) -> Value {
        let schema = self.resolve(schema);
        let Some(object) = schema.as_object() else {
            return self.any(depth);
        };
        if let Some(value) = object.get("const") {
            return value.clone();
        }
        if let Some(Value::Array(values)) = object.get("enum") {
            return self.one_of(values);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = object.get(key) {
                let branch = if depth >= DEEP {
                    // The branch least likely to recurse.
                    branches
                        .iter()
                        .min_by_key(|b| {
                            let text = self.resolve(b).to_string();
                            (text.contains("$ref"), text.len())
                        })
                        .expect("alternatives are listed")
                } else {
                    &branches[self.below(branches.len())]
                };
                return self.value(branch, depth + 1);
            }
        }
        let kind = match object.get("type") {
            Some(Value::String(kind)) => kind.clone(),
            Some(Value::Array(kinds)) => {
                let kinds: Vec<String> = kinds
                    .iter()
                    .filter_map(|k| k.as_str().map(str::to_owned))
                    .collect();
                self.one_of(&kinds)
            }
            _ if object.contains_key("properties") => "object".into(),
            _ => return self.any(depth),
        };
        match kind.as_str() {
            "null" => Value::Null,
            "boolean" => Value::Bool(self.chance(50)),
            "integer" => self.integer(object),
            "number" => self.number(object),
            "string" => Value::String(self.string(object)),
            "array" => self.array(object, depth),
            "object" => self.object(object, depth),
            _ => Value::Null,
        }
    }

    fn any(&mut self, depth: usize) -> Value {
        let choices = [
            Value::Null,
            json!(true),
            json!(1),
            json!(-2.5),
            json!("text"),
            json!([1, "a"]),
            json!({"k": 1}),
        ];
        if depth > DEEP {
            return Value::Null;
        }
        self.one_of(&choices)
    }

    fn bounds(
        &self,
        object: &Map<String, Value>,
    ) -> (Option<f64>, Option<f64>, Option<f64>, Option<f64>) {
        let get = |key: &str| object.get(key).and_then(Value::as_f64);
        (
            get("minimum"),
            get("maximum"),
            get("exclusiveMinimum"),
            get("exclusiveMaximum"),
        )
    }

    fn integer(&mut self, object: &Map<String, Value>) -> Value {
        let (min, max, xmin, xmax) = self.bounds(object);
        let exact = |key: &str| {
            object
                .get(key)
                .and_then(|v| v.as_i64().map(i128::from).or(v.as_u64().map(i128::from)))
        };
        let low = exact("minimum")
            .or(xmin.map(|x| x.floor() as i128 + 1))
            .or(min.map(|m| m.ceil() as i128))
            .unwrap_or(-1_000_000);
        let high = exact("maximum")
            .or(xmax.map(|x| x.ceil() as i128 - 1))
            .or(max.map(|m| m.floor() as i128))
            .unwrap_or(1_000_000);
        let n = match self.below(6) {
            0 => low,
            1 => high,
            2 => low.max(0).min(high),
            _ => {
                let span = (high - low) as f64;
                low + (span * self.pick(0.0f64..1.0)) as i128
            }
        }
        .clamp(low, high);
        if self.chance(10) && n.unsigned_abs() < (1 << 53) {
            // A whole number written as a float is still an integer.
            return Value::Number(Number::from_f64(n as f64).expect("finite"));
        }
        integer_value(n)
    }

    fn number(&mut self, object: &Map<String, Value>) -> Value {
        let (min, max, xmin, xmax) = self.bounds(object);
        let low = min.or(xmin).unwrap_or(-1e6);
        let high = max.or(xmax).unwrap_or(1e6);
        let x = match self.below(5) {
            0 => low,
            1 => high,
            2 => (low + high) / 2.0,
            _ => low + (high - low) * self.pick(0.0f64..1.0),
        };
        if x.fract() == 0.0 && x.abs() < 1e15 && self.chance(50) {
            return json!(x as i64);
        }
        Number::from_f64(x).map_or(json!(0), Value::Number)
    }

    fn string(&mut self, object: &Map<String, Value>) -> String {
        if let Some(format) = object.get("format").and_then(Value::as_str) {
            return self.format(format);
        }
        if let Some(pattern) = object.get("pattern").and_then(Value::as_str) {
            let bare = pattern.trim_start_matches('^').trim_end_matches('$');
            if let Ok(strategy) = proptest::string::string_regex(bare) {
                return self.pick(strategy);
            }
        }
        let min = object.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = object
            .get("maxLength")
            .and_then(Value::as_u64)
            .map_or(min + 12, |m| m as usize);
        let length = min + self.below(max.saturating_sub(min) + 1);
        let alphabet = [
            'a', 'Z', '0', ' ', '-', '_', '.', 'é', '日', '😀', '"', '\\',
        ];
        (0..length).map(|_| self.one_of(&alphabet)).collect()
    }

    fn two(&mut self, low: usize, high: usize) -> String {
        format!("{:02}", low + self.below(high - low + 1))
    }

    fn date(&mut self) -> String {
        let year = match self.below(6) {
            0 => 0,
            1 => 9999,
            2 => self.one_of(&[1900, 2000, 2024, 2100, 1600]),
            _ => self.below(10_000),
        };
        let month = self.two(0, 13);
        let day = self.two(0, 32);
        let (month, day) = if self.chance(60) {
            (
                format!("{:02}", 1 + self.below(12)),
                format!("{:02}", 1 + self.below(28)),
            )
        } else if self.chance(30) {
            ("02".into(), "29".into())
        } else {
            (month, day)
        };
        format!("{year:04}-{month}-{day}")
    }

    fn time(&mut self) -> String {
        let hour = if self.chance(80) {
            self.two(0, 23)
        } else {
            self.two(0, 24)
        };
        let minute = if self.chance(80) {
            self.two(0, 59)
        } else {
            self.two(0, 60)
        };
        let second = if self.chance(80) {
            self.two(0, 59)
        } else {
            self.two(58, 61)
        };
        let fraction = match self.below(4) {
            0 => String::new(),
            1 => ".5".into(),
            2 => ".123456789".into(),
            _ => ".1234567891234".into(),
        };
        let offset = match self.below(6) {
            0 => "Z".into(),
            1 => "z".into(),
            2 => "+00:00".into(),
            3 => "-00:00".into(),
            _ => format!(
                "{}{}:{}",
                self.one_of(&['+', '-']),
                self.two(0, 23),
                self.two(0, 59)
            ),
        };
        format!("{hour}:{minute}:{second}{fraction}{offset}")
    }

    fn format(&mut self, format: &str) -> String {
        match format {
            "date" => self.date(),
            "time" => self.time(),
            "date-time" => {
                let separator = self.one_of(&["T", "t"]);
                format!("{}{separator}{}", self.date(), self.time())
            }
            "email" => self
                .one_of(&[
                    "ada@example.com",
                    "a.b+c@sub.example.org",
                    "\"quoted local\"@example.com",
                    "user@[127.0.0.1]",
                    "user@[IPv6:::1]",
                    "a@b",
                    "a@b.",
                    "x..y@example.com",
                    ".x@example.com",
                    "x@-example.com",
                    "name@localhost",
                    "ü@example.com",
                    "joe@ü.example",
                    "a@b_c.example",
                ])
                .to_owned(),
            "hostname" => self
                .one_of(&[
                    "example.com",
                    "a",
                    "a.",
                    "a-b.c",
                    "-a.com",
                    "a-.com",
                    "xn--nxasmq6b.com",
                    "XN--NXASMQ6B.COM",
                    "xn--a.com",
                    "Example.COM.",
                    ".",
                    "a.b.",
                    "a..b",
                    "1.2.3.4",
                    "123",
                    "ü.example",
                    "under_score.example",
                    &"a".repeat(63),
                    &"a".repeat(64),
                ])
                .to_owned(),
            "uuid" => {
                let hex: String = (0..32)
                    .map(|_| self.one_of(&['0', '9', 'a', 'f', 'A', 'F']))
                    .collect();
                let dashed = format!(
                    "{}-{}-{}-{}-{}",
                    &hex[..8],
                    &hex[8..12],
                    &hex[12..16],
                    &hex[16..20],
                    &hex[20..]
                );
                self.one_of(&[dashed, hex, "{00000000-0000-0000-0000-000000000000}".into()])
            }
            "uri" => self
                .one_of(&[
                    "https://example.com/a?b=c#d",
                    "mailto:ada@example.com",
                    "urn:isbn:0451450523",
                    "file:///tmp/x",
                    "http://[::1]:80/",
                    "a:b",
                    "http://example.com/ü",
                    "http://exa mple.com",
                    "//example.com",
                    "x",
                    "http://example.com:99999/",
                    "http://example.com:65535/",
                    "http://exa%20mple.com/",
                    "http://user:pass@example.com/",
                    "http://256.256.256.256/",
                    "http://[v1.fe]/",
                    "http://[::1%25eth0]/",
                    "https://example.com/a%zz",
                    "urn:example:a:b",
                    "data:,x",
                    "foo://bar",
                    "http:",
                    "http://",
                    "h-t.t+p://x",
                    "http://ex_ample.com/",
                    "http://example.com/?q=a b",
                    "http://xn--a.com/",
                    "http://xn--nxasmq6b.com/",
                    "http://example.123/",
                    "http://1.2.3.4/",
                    "https://[1::2::3]/",
                    "https://[::1]:8080/x",
                    "ws://a-b.example:65536/",
                    "HTTP://EXAMPLE.COM",
                    "ftp://u@h/",
                ])
                .to_owned(),
            "ipv4" => self
                .one_of(&[
                    "127.0.0.1",
                    "0.0.0.0",
                    "255.255.255.255",
                    "01.2.3.4",
                    "1.2.3",
                ])
                .to_owned(),
            "ipv6" => self
                .one_of(&[
                    "::1",
                    "::",
                    "fe80::1%eth0",
                    "1:2:3:4:5:6:7:8",
                    "::ffff:1.2.3.4",
                    "1::2::3",
                    "0000:0000:0000:0000:0000:0000:0000:0001",
                    "::ffff:01.2.3.4",
                    "1:2:3:4:5:6:7::",
                    "12345::",
                ])
                .to_owned(),
            _ => "text".into(),
        }
    }

    fn array(&mut self, object: &'a Map<String, Value>, depth: usize) -> Value {
        let mut items = Vec::new();
        if let Some(Value::Array(prefix)) = object.get("prefixItems") {
            for schema in prefix {
                items.push(self.value(schema, depth + 1));
            }
            return Value::Array(items);
        }
        let min = object.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = object
            .get("maxItems")
            .and_then(Value::as_u64)
            .map_or(min + 3, |m| m as usize);
        let max = if depth >= DEEP { min } else { max.min(min + 3) };
        let count = min + self.below(max.saturating_sub(min) + 1);
        if let Some(schema) = object.get("items") {
            for _ in 0..count {
                let item = self.value(schema, depth + 1);
                if object.get("uniqueItems") == Some(&Value::Bool(true)) && items.contains(&item) {
                    continue;
                }
                items.push(item);
            }
        }
        Value::Array(items)
    }

    fn object(&mut self, object: &'a Map<String, Value>, depth: usize) -> Value {
        let mut out = Map::new();
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(Value::Object(properties)) = object.get("properties") {
            for (name, schema) in properties {
                if required.contains(&name.as_str()) || (depth < DEEP && self.chance(60)) {
                    out.insert(name.clone(), self.value(schema, depth + 1));
                }
            }
        }
        match object.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            Some(schema @ Value::Object(_)) if depth < DEEP => {
                for _ in 0..self.below(3) {
                    let key = match object.get("propertyNames") {
                        Some(names) => self
                            .value(names, depth + 1)
                            .as_str()
                            .unwrap_or("k")
                            .to_owned(),
                        None => self
                            .one_of(&["extra", "k1", "other_key", "Name"])
                            .to_owned(),
                    };
                    out.insert(key, self.value(schema, depth + 1));
                }
            }
            _ => {
                if self.chance(10) {
                    out.insert("unlisted".into(), json!(1));
                }
            }
        }
        Value::Object(out)
    }

    /// `value` with one or two of its parts changed to a near miss.
    pub fn mutate(&mut self, value: &Value) -> Value {
        let mut out = value.clone();
        for _ in 0..1 + self.below(2) {
            let mut slots = Vec::new();
            collect_paths(&out, String::new(), &mut slots);
            let path = self.one_of(&slots);
            let target = out.pointer_mut(&path).expect("a collected path");
            let replacement = self.near_miss(target);
            match replacement {
                Change::Replace(new) => *target = new,
                Change::Drop(key) => {
                    if let Value::Object(map) = target {
                        map.remove(&key);
                    }
                }
                Change::Add(key, new) => {
                    if let Value::Object(map) = target {
                        map.insert(key, new);
                    }
                }
            }
        }
        out
    }

    fn near_miss(&mut self, value: &Value) -> Change {
        let generic = [
            json!(null),
            json!(""),
            json!(0),
            json!([]),
            json!({}),
            json!(true),
            json!("1"),
        ];
        match value {
            Value::Number(number) => {
                let x = number.as_f64().unwrap_or(0.0);
                let choices = [
                    json!(x + 1.0),
                    json!(x - 1.0),
                    json!(x + 0.5),
                    Value::Number(Number::from_f64(x.trunc()).unwrap_or(Number::from(0))),
                    json!(-9.223372036854776e18),
                    json!(1.8446744073709552e19),
                    json!(9.007199254740993e15),
                    json!(1e300),
                    json!(i64::MIN),
                    json!(u64::MAX),
                    json!(256),
                    json!(-1),
                    json!("12"),
                ];
                Change::Replace(self.one_of(&choices))
            }
            Value::String(text) => {
                let mut chars: Vec<char> = text.chars().collect();
                let choices = [
                    format!("{text}Z"),
                    format!("{text}.5"),
                    format!(" {text}"),
                    text.to_uppercase(),
                    text.to_lowercase(),
                    {
                        if !chars.is_empty() {
                            let at = self.below(chars.len());
                            chars[at] = self.one_of(&['0', '9', 'x', '-', ':', 'T', ' ']);
                        }
                        chars.iter().collect()
                    },
                    text.chars()
                        .take(text.chars().count().saturating_sub(1))
                        .collect(),
                    String::new(),
                    "null".into(),
                ];
                Change::Replace(Value::String(self.one_of(&choices)))
            }
            Value::Object(map) if !map.is_empty() && self.chance(60) => {
                let keys: Vec<&String> = map.keys().collect();
                let key = self.one_of(&keys).clone();
                if self.chance(50) {
                    Change::Drop(key)
                } else {
                    let near = [format!("{key}_"), key.to_uppercase(), "unknown".into()];
                    Change::Add(self.one_of(&near), json!(1))
                }
            }
            _ => Change::Replace(self.one_of(&generic)),
        }
    }
}

enum Change {
    Replace(Value),
    Drop(String),
    Add(String, Value),
}

/// Every JSON pointer in `value`, the root included.
fn collect_paths(value: &Value, here: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                collect_paths(child, format!("{here}/{escaped}"), out);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                collect_paths(child, format!("{here}/{index}"), out);
            }
        }
        _ => {}
    }
    out.push(here);
}

fn integer_value(n: i128) -> Value {
    if let Ok(n) = i64::try_from(n) {
        json!(n)
    } else if let Ok(n) = u64::try_from(n) {
        json!(n)
    } else {
        json!(n as f64)
    }
}

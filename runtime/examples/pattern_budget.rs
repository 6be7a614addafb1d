//! What one call costs whose values a backtracking pattern checks: a
//! tool whose arguments are a list of strings, each held to `^(a+)+\1$`
//! (a backreference: only a backtracking engine reads it), called with
//! `count` values of `LEN` characters (default 100,000): `a`s and a `b`
//! (no match, found in a number of steps that grows with the length, each
//! step costing more as the value grows).
//! The CPU time of the process (user + system, from /proc/self/stat) and
//! the wall time around each call are printed; run it in release:
//!
//! ```text
//! LEN=100000 cargo run --release -p toolschema-runtime --example pattern_budget [count...]
//! ```

use std::time::Instant;

use serde_json::{Value, json};
use toolschema_runtime::ToolDef;
use toolschema_runtime::model::{Annotations, Node, Ref, Text};
use toolschema_runtime::validate::{InputValidator, Limits};

/// User plus system CPU time of this process so far, in seconds (clock
/// ticks of 10 ms), if /proc says it.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let user: f64 = fields.get(11)?.parse().ok()?;
    let system: f64 = fields.get(12)?.parse().ok()?;
    Some((user + system) / 100.0)
}

fn main() {
    let counts: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|count| count.parse().ok())
        .collect();
    let counts = if counts.is_empty() {
        vec![1, 2, 8]
    } else {
        counts
    };
    let schema = json!({
        "type": "object",
        "properties": {"values": {"type": "array", "items": {"type": "string", "pattern": "^(a+)+\\1$"}}},
    });
    let tool = ToolDef {
        name: Text::from("match".to_owned()),
        title: None,
        description: Ref::Static("Matches."),
        version: 1,
        input: Ref::new(Node::Raw(Text::from(schema.to_string()))),
        output: None,
        annotations: Annotations::NONE,
        icons: Ref::Static(&[]),
        internal: false,
    };
    let validator = InputValidator::new(&tool, Limits::default());
    // `LEN` characters (default 100,000): `a`s, then `TAIL` (default `b`).
    let length: usize = std::env::var("LEN")
        .ok()
        .and_then(|length| length.parse().ok())
        .unwrap_or(100_000);
    let tail = std::env::var("TAIL").unwrap_or_else(|_| "b".to_owned());
    let value = "a".repeat(length.saturating_sub(tail.len())) + &tail;
    for count in counts {
        let arguments = json!({"values": vec![Value::from(value.clone()); count]});
        let (cpu, wall) = (cpu_seconds(), Instant::now());
        let verdict = validator.check_value(arguments);
        let wall = wall.elapsed().as_secs_f64();
        let cpu = cpu
            .zip(cpu_seconds())
            .map_or(f64::NAN, |(before, after)| after - before);
        let said = match &verdict {
            Ok(_) => "accepted".to_owned(),
            Err(errors) => errors.to_string().chars().take(300).collect(),
        };
        println!("{count} values: CPU {cpu:.2} s, wall {wall:.2} s: {said}");
    }
}

//! Work a client's arguments can make long is bounded: patterns in the
//! `regex` crate's language are matched in linear time, a pattern that
//! needs backtracking stops at a step limit and refuses the value, and a
//! large call's arguments are read wherever the transport's offload runs
//! them (the serving crate: a blocking thread).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Deserialize;
use serde_json::{Value, json};
use toolschema::Tool;
use toolschema::call::{
    CallError, Caller, Context, Handler, Offload, Registry, ToolError, ToolResult,
};
use toolschema::validate::Rule;
use toolschema_test_support::block_on;

/// Tags an item.
#[derive(Tool, Deserialize)]
#[tool(name = "shop.tag")]
struct Tag {
    /// Catastrophic for a backtracking engine, linear for `regex`.
    #[tool(pattern = "^(a+)+$")]
    word: Option<String>,
    /// A backreference: only a backtracking engine reads it.
    #[tool(pattern = "^(a|aa)+\\1$")]
    echo: Option<String>,
    /// A lookahead: only a backtracking engine reads it.
    #[tool(pattern = "^(?=.*[0-9]).{8,}$")]
    code: Option<String>,
}

impl Handler for Tag {
    async fn call(self, _: Context) -> Result<ToolResult, ToolError> {
        let given = [self.word, self.echo, self.code].iter().flatten().count();
        Ok(ToolResult::text(format!("tagged with {given}")))
    }
}

fn registry() -> Registry {
    let mut registry = Registry::new();
    registry.register::<Tag>().expect("registers");
    registry
}

/// The rules broken and their sentences, for `arguments`.
fn refusal(registry: &Registry, arguments: Value) -> Vec<(String, Rule, String)> {
    match block_on(registry.call("shop.tag", arguments)) {
        Err(CallError::InvalidArguments(errors)) => errors
            .iter()
            .map(|v| (v.path().to_owned(), v.rule(), v.message().to_owned()))
            .collect(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn patterns_match_as_json_schema_says() {
    let registry = registry();
    for (field, good, bad) in [
        ("word", "aaaa", "aab"),
        ("echo", "aaaa", "aaa b"),
        ("code", "abcdefg1", "abcdefgh"),
    ] {
        assert!(
            block_on(registry.call("shop.tag", json!({ field: good }))).is_ok(),
            "{field} {good}"
        );
        let found = refusal(&registry, json!({ field: bad }));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].0.as_str(), found[0].1),
            (&*format!("/{field}"), Rule::Pattern)
        );
    }
}

#[test]
fn a_value_built_to_backtrack_is_refused_within_bounds() {
    let registry = registry();
    // `(a+)+` on a long run of `a` that fails at its end: exponential for
    // a backtracking engine, one pass for `regex`: an ordinary mismatch.
    let word = format!("{}!", "a".repeat(100_000));
    let found = refusal(&registry, json!({ "word": word }));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].1, Rule::Pattern);
    assert!(
        found[0].2.ends_with("must match the pattern `^(a+)+$`."),
        "{}",
        found[0].2
    );
    // A backreference over a long run that fails at its end: the engine
    // stops at its step limit, and the value is refused as too costly.
    let echo = format!("{}b", "a".repeat(100_000));
    let found = refusal(&registry, json!({ "echo": echo }));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].1, Rule::Pattern);
    assert!(
        found[0].2.ends_with(
            "is too costly to check against its pattern; send a shorter or plainer value."
        ),
        "{}",
        found[0].2
    );
}

/// Runs work on a thread of its own, counting the runs.
#[derive(Default)]
struct Counted(AtomicUsize);

impl Offload for Counted {
    fn run(&self, work: Box<dyn FnOnce() + Send>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        let done = std::thread::spawn(work);
        Box::pin(async move {
            let _ = done.join();
        })
    }
}

/// Offloads nothing: the work is dropped (a pool shutting down).
struct Closed;

impl Offload for Closed {
    fn run(&self, _: Box<dyn FnOnce() + Send>) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(async {})
    }
}

#[test]
fn a_call_with_an_offload_reads_its_arguments_there_with_the_same_outcome() {
    let registry = registry();
    let counted = Arc::new(Counted::default());
    let call = |arguments: Value| {
        let caller = Caller::anonymous().with_offload(counted.clone());
        block_on(registry.call_as(caller, "shop.tag", Tag::TOOL.version, arguments))
    };
    let ok = call(json!({"word": "aaa"})).expect("runs");
    assert_eq!(
        ok.content_json(),
        json!([{"type": "text", "text": "tagged with 1"}])
    );
    let refused = call(json!({"word": "b", "colour": "red"}));
    let Err(CallError::InvalidArguments(errors)) = refused else {
        panic!("{refused:?}");
    };
    assert_eq!(errors.len(), 2, "{errors}");
    assert_eq!(counted.0.load(Ordering::SeqCst), 2);
    // An offload that cannot run the work: a defect, never a hang.
    let caller = Caller::anonymous().with_offload(Arc::new(Closed));
    let closed = block_on(registry.call_as(caller, "shop.tag", Tag::TOOL.version, json!({})));
    assert!(
        matches!(closed, Err(CallError::Defect { .. })),
        "{closed:?}"
    );
}

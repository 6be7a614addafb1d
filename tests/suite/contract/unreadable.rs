//! When serde refuses what the schema passed (a schema written by hand, or
//! a `deserialize_with` function stricter than the schema it states), the
//! answer says where, in exposed names, and why, and the server's log
//! records the defect.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use toolschema::Tool;
use toolschema::validate::{InputValidator, Limits, Rule};

/// Counts things; the count must be even, which its schema does not say.
#[derive(Tool, Deserialize, Debug)]
#[tool(name = "contract.even-counts")]
pub struct EvenCounts {
    pub lines: Vec<Line>,
}

/// One line.
#[derive(toolschema::Schema, Deserialize, Debug)]
pub struct Line {
    #[tool(rename = "qty")]
    #[serde(deserialize_with = "even")]
    #[tool(schema = u32)]
    pub quantity: u32,
}

fn even<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let n = u32::deserialize(deserializer)?;
    if n % 2 == 1 {
        return Err(serde::de::Error::custom("odd numbers are not accepted"));
    }
    Ok(n)
}

fn refusal<T: Tool + serde::de::DeserializeOwned + std::fmt::Debug>(
    arguments: &str,
) -> toolschema::Violation {
    let validator = InputValidator::new(T::TOOL, Limits::default());
    let errors = validator.parse::<T>(arguments).expect_err("refused");
    let value: serde_json::Value = serde_json::from_str(arguments).expect("JSON");
    // The parsed value is refused alike.
    let same = validator.read::<T>(value).expect_err("refused");
    assert_eq!(errors, same);
    assert_eq!(errors.len(), 1, "{errors:?}");
    errors.iter().next().expect("one").clone()
}

#[test]
fn a_function_stricter_than_its_schema_is_answered_with_where() {
    let violation = refusal::<EvenCounts>(r#"{"lines": [{"qty": 2}, {"qty": 3}]}"#);
    assert_eq!(violation.path(), "/lines/1/qty");
    assert_eq!(violation.rule(), Rule::Unreadable);
    assert_eq!(
        violation.message(),
        "`/lines/1/qty` could not be read: odd numbers are not accepted; check it against the field's description."
    );
    // The source name never reaches the model.
    assert!(!violation.message().contains("quantity"));
    // What the function accepts is read.
    let validator = InputValidator::new(EvenCounts::TOOL, Limits::default());
    let read = validator
        .parse::<EvenCounts>(r#"{"lines": [{"qty": 4}]}"#)
        .expect("an even count");
    assert_eq!(read.lines[0].quantity, 4);
}

#[test]
fn a_schema_written_by_hand_looser_than_its_type_is_answered_with_where() {
    // booking.json lists two dates without requiring two.
    let violation =
        refusal::<crate::input_schema::BookRoom>(r#"{"room": "A101", "guests": 2, "dates": []}"#);
    assert_eq!(violation.path(), "/dates");
    assert_eq!(violation.rule(), Rule::Unreadable);
    assert_eq!(
        violation.message(),
        "`/dates` has 0 item(s); send an array of 2 items."
    );
}

/// The log lines written while `run` runs.
fn logged(run: impl FnOnce()) -> String {
    #[derive(Clone)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);
    impl Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .expect("not poisoned")
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let buffer = Buffer(Arc::default());
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        // Each callsite's interest is cached across threads: one first met
        // while another test's thread had no subscriber may be cached as
        // never enabled. Asked again now, with this thread's subscriber.
        tracing::callsite::rebuild_interest_cache();
        run();
    });
    let bytes = buffer.0.lock().expect("not poisoned").clone();
    String::from_utf8(bytes).expect("UTF-8")
}

#[test]
fn the_disagreement_is_logged_as_a_defect_of_the_tool() {
    let log = logged(|| {
        refusal::<EvenCounts>(r#"{"lines": [{"qty": 5}]}"#);
    });
    assert!(log.contains("ERROR"), "{log}");
    assert!(log.contains("contract.even-counts"), "{log}");
    assert!(log.contains("/lines/0/qty"), "{log}");
    assert!(log.contains("odd numbers are not accepted"), "{log}");
    assert!(log.contains("the schema and the type disagree"), "{log}");
    // Arguments the schema refuses are the client's mistake, not a defect.
    let quiet = logged(|| {
        let validator = InputValidator::new(EvenCounts::TOOL, Limits::default());
        let errors = validator
            .parse::<EvenCounts>(r#"{"lines": [{"qty": -1}]}"#)
            .expect_err("below zero");
        assert_eq!(errors.iter().next().map(|v| v.rule()), Some(Rule::Minimum));
    });
    assert!(quiet.is_empty(), "{quiet}");
}

//! Any text as the arguments of tools over serde's attribute surface and the
//! third-party types: the advertised schema, the library's check and serde
//! keep one contract. What an independent validator (boon) finds valid the
//! library accepts, but for the refusals decided by the standards
//! (`refused_by_design`); what the library accepts serde reads, from the
//! text and from the parsed value alike; a refusal always says where.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolschema::Tool;
use toolschema_test_support::contract::tools::*;
use toolschema_test_support::contract::{Judges, judge};

fn hold<T: Tool + DeserializeOwned>(judges: &Judges, text: &str, value: Option<&Value>) {
    let validator = &judges.library;
    let parsed = validator.parse::<T>(text);
    if let Err(errors) = &parsed {
        for violation in errors.iter() {
            assert!(
                !(violation.rule() == toolschema::validate::Rule::Unreadable
                    && violation.path().is_empty()),
                "refused without saying where: {text}"
            );
        }
    }
    if let Ok(checked) = validator.check_str(text) {
        assert!(
            T::deserialize(&checked).is_ok(),
            "the library accepts what serde does not read: {text}"
        );
        assert!(parsed.is_ok(), "checked but not read: {text}");
    }
    if let Some(value) = value {
        let verdicts = judge::<T>(judges, value);
        assert!(
            verdicts.breaches.is_empty(),
            "{text}: {:?}",
            verdicts.breaches
        );
    }
}

macro_rules! tools {
    ($($tool:ty),* $(,)?) => {
        fn judges() -> &'static Vec<Judges> {
            static JUDGES: OnceLock<Vec<Judges>> = OnceLock::new();
            JUDGES.get_or_init(|| vec![$(Judges::of::<$tool>()),*])
        }

        fn each(text: &str, value: Option<&Value>) {
            let mut judges = judges().iter();
            $(hold::<$tool>(judges.next().expect("one judge a tool"), text, value);)*
        }
    };
}

tools!(
    NumbersInEnums,
    WideIntegers,
    FlattenedMap,
    FlattenedTwice,
    UntaggedUnit,
    OtherVariant,
    NamesAndDefaults,
    VariantNames,
    Refined,
    ChronoTypes,
    TimeTypes,
    TimeRfc3339,
    IdentifierTypes,
    VariantFields,
    UntaggedOverlap,
    Nested,
    ScalarEdges,
    LastEdges,
);

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let value = serde_json::from_str::<Value>(text).ok();
    each(text, value.as_ref());
});

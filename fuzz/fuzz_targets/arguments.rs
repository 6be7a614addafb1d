//! Any text as a tool's arguments: the one checked pass of serde and the
//! full path (parse, validate every rule, map names, deserialize) agree.
//! What the one pass accepts the full path accepts, as the same value; the
//! combined reader accepts exactly what the full path does, and where both
//! refuse, reports exactly the same violations (the plan's listing of them
//! included).

#![no_main]

use std::fmt::Debug;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;
use toolschema::Tool;
use toolschema::validate::{InputValidator, Limits};
use toolschema_demo::{GetInvoice, ListInvoices, OpenBalances, OpenTicket, RefundV2};

fn agree<T: Tool + DeserializeOwned + Debug>(validator: &InputValidator, text: &str) {
    let checked = validator.check_str(text);
    let full = checked
        .as_ref()
        .ok()
        .and_then(|value| serde_json::from_value::<T>(value.clone()).ok());
    if validator.fast_path_accepts::<T>(text) {
        assert!(
            full.is_some(),
            "the one pass accepts what the full path refuses: {text}"
        );
    }
    let read = validator.parse::<T>(text);
    match (&read, &full) {
        (Ok(read), Some(full)) => assert_eq!(format!("{read:?}"), format!("{full:?}"), "{text}"),
        (Err(read), None) => {
            if let Err(full) = &checked {
                assert_eq!(read, full, "{text}");
            }
        }
        (read, full) => {
            panic!("the reader and the full path disagree on {text}: {read:?} / {full:?}")
        }
    }
}

macro_rules! validators {
    ($($tool:ty),*) => {{
        static VALIDATORS: OnceLock<Vec<InputValidator>> = OnceLock::new();
        VALIDATORS.get_or_init(|| vec![$(InputValidator::new(<$tool>::TOOL, Limits::default())),*])
    }};
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let validators = validators!(GetInvoice, ListInvoices, OpenTicket, RefundV2, OpenBalances);
    agree::<GetInvoice>(&validators[0], text);
    agree::<ListInvoices>(&validators[1], text);
    agree::<OpenTicket>(&validators[2], text);
    agree::<RefundV2>(&validators[3], text);
    agree::<OpenBalances>(&validators[4], text);
});

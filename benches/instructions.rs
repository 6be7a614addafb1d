//! The call path in instructions rather than seconds: timings on a shared
//! two-core machine move by a third from run to run, instruction counts do
//! not. `python3 benches/instructions.py` runs each variant under
//! `valgrind --tool=callgrind` twice (with a few calls and with many) and
//! reports the instructions of one call, the difference divided by the
//! difference in calls, so that start-up and set-up cancel out.
//!
//! Run directly: `instructions <variant> <calls>`, where the variants are
//! those of `call.rs`: `a` (`serde_json::from_str`), `b` (the usual stack),
//! `c` (`parse_args`), `a-value`, `b-value`, `c-value` (arguments already
//! parsed), `b-errors`, `c-errors` (five violations); and a gateway tool's
//! own work, `g-floor`/`g-ours` (REST) and `s-floor`/`s-ours` (SOAP).

#![allow(missing_docs, unreachable_pub, dead_code)]

use std::hint::black_box;

#[path = "fixtures/invoice.rs"]
mod invoice;

use invoice::{CreateInvoice, bad_payload, payload, usual_validator};
use toolschema::validate::{InputValidator, Limits};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(variant), Some(calls)) = (args.next(), args.next()) else {
        // `cargo bench` runs every bench target without these arguments.
        eprintln!("usage: instructions <variant> <calls> (see benches/instructions.py)");
        return;
    };
    let calls: usize = calls.parse().expect("a number of calls");
    let text = payload();
    let bad = bad_payload();
    let validator = usual_validator();
    let parsed: serde_json::Value = serde_json::from_str(&text).expect("json");
    let own = InputValidator::new(<CreateInvoice as toolschema::Tool>::TOOL, Limits::default());
    // Warm the compiled-validator cache, as a running server would have it.
    assert!(toolschema::parse_args::<CreateInvoice>(&text).is_ok());
    let gateway = gateway::Fixture::new();
    let soap = soap::Fixture::new();
    let mut ok = 0usize;
    for _ in 0..calls {
        ok += usize::from(match variant.as_str() {
            "a" => serde_json::from_str::<CreateInvoice>(black_box(&text)).is_ok(),
            "b" => {
                let value: serde_json::Value =
                    serde_json::from_str(black_box(&text)).expect("json");
                validator.is_valid(&value) && serde_json::from_value::<CreateInvoice>(value).is_ok()
            }
            "c" => toolschema::parse_args::<CreateInvoice>(black_box(&text)).is_ok(),
            "a-value" => serde_json::from_value::<CreateInvoice>(black_box(parsed.clone())).is_ok(),
            "b-value" => own
                .check_value(black_box(parsed.clone()))
                .is_ok_and(|value| serde_json::from_value::<CreateInvoice>(value).is_ok()),
            "c-value" => own.read::<CreateInvoice>(black_box(parsed.clone())).is_ok(),
            "b-errors" => {
                let value: serde_json::Value = serde_json::from_str(black_box(&bad)).expect("json");
                let errors: Vec<String> = validator
                    .iter_errors(&value)
                    .map(|e| e.to_string())
                    .collect();
                errors.len() == 5
            }
            "c-errors" => toolschema::parse_args::<CreateInvoice>(black_box(&bad))
                .err()
                .is_some_and(|e| e.len() == 5),
            "g-floor" => gateway.floor(),
            "g-ours" => gateway.ours(),
            "s-floor" => soap.floor(),
            "s-ours" => soap.ours(),
            other => panic!("unknown variant `{other}`"),
        });
    }
    assert_eq!(ok, calls, "every call gives the expected answer");
}

/// A configured tool's own work on a call, without the network: what the
/// gateway adds to calling the downstream directly.
mod gateway {
    use std::hint::black_box;

    use serde_json::{Value, json};
    use toolschema::call::Registry;
    use toolschema::catalog::Config;
    use toolschema::catalog::gateway::GatewayVersion;
    use toolschema::validate::{InputValidator, Limits, OutputValidator};

    const CONFIG: &str = include_str!("fixtures/gateway.toml");
    const ANSWER: &[u8] = include_bytes!("fixtures/gateway-answer.json");

    /// A configuration's first gateway tool, its validators, and the
    /// arguments of a call.
    pub(crate) struct Fixture {
        pub(crate) version: GatewayVersion,
        pub(crate) input: InputValidator,
        pub(crate) output: OutputValidator,
        pub(crate) arguments: Value,
    }

    impl Fixture {
        pub(crate) fn new() -> Fixture {
            Fixture::load(CONFIG, json!({"order_id": 42, "expand": "lines"}))
        }

        pub(crate) fn load(config: &str, arguments: Value) -> Fixture {
            let config = Config::from_toml(config, "fixture.toml", &Registry::new())
                .unwrap_or_else(|errors| panic!("{errors}"));
            let version = config.gateway_tools()[0].versions()[0].clone();
            let input = InputValidator::new(version.def(), Limits::default());
            let output = OutputValidator::new(version.def()).expect("an output schema");
            Fixture {
                version,
                input,
                output,
                arguments,
            }
        }

        /// What a caller without the gateway does with the answer: parse it.
        pub(crate) fn floor(&self) -> bool {
            serde_json::from_slice::<Value>(black_box(ANSWER)).is_ok_and(|v| v.get("id").is_some())
        }

        /// The gateway's work: arguments checked and mapped into a request,
        /// the answer parsed, mapped to exposed names and checked.
        pub(crate) fn ours(&self) -> bool {
            let operation = self.version.operation();
            let Ok(arguments) = self.input.read::<Value>(black_box(self.arguments.clone())) else {
                return false;
            };
            let Ok(request) = operation.request(&arguments) else {
                return false;
            };
            let Ok(answer) = serde_json::from_slice::<Value>(black_box(ANSWER)) else {
                return false;
            };
            let Ok(result) = operation.result(&answer) else {
                return false;
            };
            black_box(request);
            self.output.check(result).is_ok()
        }
    }
}

/// A SOAP tool's own work on a call, without the network, against what a
/// hand-written client does: format the envelope, read the one value it
/// wants from the answer with quick-xml's streaming reader.
mod soap {
    use std::hint::black_box;

    use quick_xml::events::Event;
    use serde_json::{Value, json};

    use super::gateway;

    const CONFIG: &str = include_str!("fixtures/soap.toml");
    const ANSWER: &[u8] = include_bytes!("fixtures/soap-answer.xml");

    pub(crate) struct Fixture(gateway::Fixture);

    impl Fixture {
        pub(crate) fn new() -> Fixture {
            Fixture(gateway::Fixture::load(
                CONFIG,
                json!({"species": "dog", "age_years": 3, "coverage": {"amount": 5000, "currency": "EUR"}, "extra": ["dental", "travel"]}),
            ))
        }

        pub(crate) fn floor(&self) -> bool {
            let (species, age, amount, currency) = black_box(("dog", 3, 5000, "EUR"));
            let envelope = format!(
                r#"<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><m:GetQuote xmlns:m="urn:pets-inc:insurance"><m:species>{species}</m:species><m:ageYears>{age}</m:ageYears><m:coverage currency="{currency}"><m:amount>{amount}</m:amount></m:coverage><m:extra>dental</m:extra><m:extra>travel</m:extra></m:GetQuote></soap:Body></soap:Envelope>"#
            );
            black_box(envelope);
            let mut reader = quick_xml::Reader::from_reader(black_box(ANSWER));
            let mut buffer = Vec::new();
            let mut inside = false;
            loop {
                match reader.read_event_into(&mut buffer) {
                    Ok(Event::Start(start)) => {
                        inside = start.local_name().as_ref() == "monthlyPremium"
                    }
                    Ok(Event::Text(text)) if inside => {
                        return text.xml10_content().parse::<f64>().is_ok();
                    }
                    Ok(Event::Eof) | Err(_) => return false,
                    _ => {}
                }
                buffer.clear();
            }
        }

        /// The gateway's work: arguments checked and written into the
        /// envelope, the answer read, mapped to exposed names and checked.
        pub(crate) fn ours(&self) -> bool {
            let fixture = &self.0;
            let operation = fixture.version.operation();
            let Ok(arguments) = fixture
                .input
                .read::<Value>(black_box(fixture.arguments.clone()))
            else {
                return false;
            };
            let Ok(envelope) = operation.envelope(&arguments) else {
                return false;
            };
            black_box(envelope);
            let Ok(result) = operation.result_from_envelope(black_box(ANSWER)) else {
                return false;
            };
            fixture.output.check(result).is_ok()
        }
    }
}

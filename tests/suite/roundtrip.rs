//! Round trips: what serde writes validates against the derived schema, and
//! JSON the schema refuses is refused by serde too.

use crate::support::violations;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use toolschema::Schema;
use toolschema::model::Direction;
use toolschema::render::render_schema;

use crate::corpus::*;

fn validator<T: Schema>(direction: Direction) -> jsonschema::Validator {
    let schema = render_schema(T::SCHEMA, direction).to_value();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .expect("derived schemas compile")
}

/// Serializes `value`, checks the JSON against the output schema, reads it
/// back, checks it against the input schema, and compares.
fn round_trip<T>(value: T)
where
    T: Schema + Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_value(&value).expect("serialize");
    let errors = violations(&validator::<T>(Direction::Output), &json);
    assert!(
        errors.is_empty(),
        "{json} breaks the output schema of {}: {errors:#?}",
        std::any::type_name::<T>()
    );
    let back: T = serde_json::from_value(json.clone()).expect("deserialize");
    assert_eq!(back, value);
}

/// The JSON is refused by the input schema and by serde.
fn refused<T: Schema + DeserializeOwned + std::fmt::Debug>(json: Value) {
    let valid = validator::<T>(Direction::Input).is_valid(&json);
    assert!(
        !valid,
        "the schema of {} accepts {json}",
        std::any::type_name::<T>()
    );
    let read = serde_json::from_value::<T>(json.clone());
    assert!(read.is_err(), "serde reads {json} as {read:?}");
}

fn date() -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(2026, 11, 29).expect("valid date")
}

fn instant() -> chrono::DateTime<chrono::Utc> {
    date()
        .and_hms_milli_opt(20, 33, 40, 125)
        .expect("valid time")
        .and_utc()
}

fn address() -> Address {
    Address {
        street: "1 Main St".into(),
        city: "Springfield".into(),
        country: "US".into(),
    }
}

fn tree() -> Tree {
    Tree {
        label: "root".into(),
        children: vec![Tree {
            label: "leaf".into(),
            children: vec![],
        }],
    }
}

#[test]
fn scalars_round_trip() {
    round_trip(Scalars {
        flag: true,
        tiny: i8::MIN,
        small: i16::MAX,
        medium: -5,
        large: i64::MIN,
        pointer_sized: isize::MAX,
        byte: u8::MAX,
        word: 0,
        double_word: u32::MAX,
        quad_word: u64::MAX,
        unsigned_pointer_sized: 7,
        positive: std::num::NonZero::new(1).expect("non-zero"),
        nonzero_signed: std::num::NonZero::new(-3).expect("non-zero"),
        ratio: 0.5,
        precise: -1.25e300,
        initial: 'λ',
    });
}

#[test]
fn strings_optionals_collections_and_pointers_round_trip() {
    round_trip(Strings {
        owned: "a".into(),
        cow: "b".into(),
        boxed: "c".into(),
        shared: "d".into(),
    });
    round_trip(Optionals {
        nickname: None,
        middle_name: Some("Q".into()),
        retries: 2,
        scores: vec![Some(1), None, Some(255)],
    });
    round_trip(Collections {
        list: vec!["x".into()],
        queue: [1, -1].into(),
        triple: [1, 2, 3],
        tags: ["a".to_string(), "b".to_string()].into(),
        labels: ["c".to_string()].into(),
        counts: [("k".to_string(), 9)].into(),
        lookup: [("yes".into(), true)].into(),
        pair: ("one".into(), 1),
        boxed_slice: vec![1, 2].into(),
    });
    round_trip(Pointers {
        boxed: Box::new(1),
        shared: std::sync::Arc::new("s".into()),
        counted: std::rc::Rc::new(false),
        anything: json!({"any": ["thing", 1, null]}),
        nothing: (),
    });
}

#[test]
fn third_party_types_round_trip() {
    round_trip(ChronoTimes {
        day: date(),
        instant: instant(),
        offset_instant: instant()
            .with_timezone(&chrono::FixedOffset::east_opt(3600).expect("offset")),
        local: instant().naive_utc(),
        clock: instant().time(),
    });
    round_trip(TimeTimes {
        day: time::macros::date!(2026 - 11 - 29),
        instant: time::macros::datetime!(2026-11-29 20:33:40.125 UTC),
        local: time::macros::datetime!(2026-11-29 20:33:40),
        clock: time::macros::time!(8:05:01.5),
    });
    round_trip(Identifiers {
        id: uuid::Uuid::from_u128(0x1234_5678_9abc_def0_1234_5678_9abc_def0),
        amount: rust_decimal::Decimal::new(-123_456, 3),
        homepage: url::Url::parse("https://example.com/a?b=c").expect("url"),
        v4: std::net::Ipv4Addr::LOCALHOST,
        v6: std::net::Ipv6Addr::LOCALHOST,
        either: "10.1.2.3".parse().expect("ip"),
    });
}

#[test]
fn enums_round_trip_in_every_representation() {
    for color in [Color::Red, Color::Green, Color::Blue] {
        round_trip(color);
    }
    round_trip(Shape::Point);
    round_trip(Shape::Circle(1.5));
    round_trip(Shape::Rectangle(2.0, 3.0));
    round_trip(Shape::Polygon {
        corners: vec![(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)],
        closed: true,
    });
    round_trip(Event::Started);
    round_trip(Event::SignedIn {
        user: "ada".into(),
        at: instant(),
    });
    round_trip(Event::Paid(Payment {
        amount_cents: 100,
        currency: "EUR".into(),
    }));
    round_trip(Message::Ping);
    round_trip(Message::Text("hi".into()));
    round_trip(Message::Move(-1, 2));
    round_trip(Message::Edit {
        message_id: 4,
        new_text: "bye".into(),
    });
    round_trip(Setting::Unset);
    round_trip(Setting::Flag(true));
    round_trip(Setting::Many(vec!["a".into()]));
    round_trip(Setting::Detailed {
        value: "v".into(),
        locked: false,
    });
}

#[test]
fn nesting_recursion_and_serde_attributes_round_trip() {
    round_trip(Customer {
        name: "Ada".into(),
        billing: address(),
        shipping: Some(address()),
        favourite: Color::Blue,
    });
    round_trip(tree());
    round_trip(Folder {
        name: "docs".into(),
        parent: Some(Box::new(Folder {
            name: "root".into(),
            parent: None,
            tree: tree(),
        })),
        tree: tree(),
    });
    round_trip(TwoTrees {
        left: left::Node {
            next: Some(Box::new(left::Node { next: None })),
        },
        right: right::Node {
            children: vec![right::Node { children: vec![] }],
        },
    });
    round_trip(Expr::Add {
        left: Box::new(Expr::Literal { value: 1 }),
        right: Box::new(Expr::Negate {
            operand: Box::new(Expr::Literal { value: 2 }),
        }),
    });
    round_trip(Flattened {
        query: "q".into(),
        paging: Paging {
            per_page: 10,
            cursor: Some("c".into()),
        },
        filters: [("colour".to_string(), "red".to_string())].into(),
    });
    round_trip(Shapes {
        sku: Sku { code: "A-1".into() },
        length: Meters(2.5),
        at: GridPoint(1, -1),
        marker: Nothing,
    });
    round_trip(Generic {
        colors: Page {
            items: vec![Color::Red],
            total: 1,
        },
        addresses: Page {
            items: vec![address()],
            total: 1,
        },
    });
}

#[test]
fn serde_names_are_what_the_schema_says() {
    // `cache` is skipped both ways; `computed` is written but never read, so
    // the output schema lists it and the input schema (which refuses unknown
    // properties, as serde does here) does not.
    let value = SerdeNames {
        first_name: "Ada".into(),
        last_name: "Lovelace".into(),
        email_address: "ada@example.com".into(),
        cache: 7,
        computed: 9,
    };
    let mut written = serde_json::to_value(&value).expect("serialize");
    assert!(validator::<SerdeNames>(Direction::Output).is_valid(&written));
    assert!(!validator::<SerdeNames>(Direction::Input).is_valid(&written));
    assert!(serde_json::from_value::<SerdeNames>(written.clone()).is_err());
    written.as_object_mut().expect("object").remove("computed");
    assert!(validator::<SerdeNames>(Direction::Input).is_valid(&written));
    assert!(serde_json::from_value::<SerdeNames>(written).is_ok());
    let input = json!({"firstName": "A", "surname": "L", "emailAddress": "a@b.c"});
    assert!(validator::<SerdeNames>(Direction::Input).is_valid(&input));
    assert!(serde_json::from_value::<SerdeNames>(input).is_ok());
}

#[test]
fn bad_inputs_are_refused_by_schema_and_serde() {
    let scalars = json!({
        "flag": true, "tiny": 0, "small": 0, "medium": 0, "large": 0, "pointer_sized": 0,
        "byte": 0, "word": 0, "double_word": 0, "quad_word": 0, "unsigned_pointer_sized": 0,
        "positive": 1, "nonzero_signed": 1, "ratio": 0.0, "precise": 0.0, "initial": "x"
    });
    let with = |key: &str, value: Value| {
        let mut json = scalars.clone();
        json[key] = value;
        json
    };
    let without = |key: &str| {
        let mut json = scalars.clone();
        json.as_object_mut().expect("object").remove(key);
        json
    };
    refused::<Scalars>(with("tiny", json!(128)));
    refused::<Scalars>(with("tiny", json!(-129)));
    refused::<Scalars>(with("byte", json!(256)));
    refused::<Scalars>(with("byte", json!(-1)));
    refused::<Scalars>(with("word", json!(1.5)));
    refused::<Scalars>(with("double_word", json!(4_294_967_296u64)));
    refused::<Scalars>(with("positive", json!(0)));
    refused::<Scalars>(with("nonzero_signed", json!(0)));
    refused::<Scalars>(with("initial", json!("ab")));
    refused::<Scalars>(with("initial", json!("")));
    refused::<Scalars>(with("flag", json!("true")));
    refused::<Scalars>(with("ratio", json!("0.5")));
    refused::<Scalars>(without("flag"));
    refused::<Scalars>(json!([]));

    refused::<Collections>(json!({
        "list": [], "queue": [], "triple": [1, 2], "tags": [], "labels": [], "counts": {},
        "lookup": {}, "pair": ["a", 1], "boxed_slice": []
    }));
    refused::<Collections>(json!({
        "list": [], "queue": [], "triple": [1, 2, 3], "tags": [], "labels": [], "counts": {"a": -1},
        "lookup": {}, "pair": ["a", 1], "boxed_slice": []
    }));
    refused::<Collections>(json!({
        "list": [], "queue": [], "triple": [1, 2, 3], "tags": [], "labels": [], "counts": {},
        "lookup": {}, "pair": ["a", 1, 2], "boxed_slice": []
    }));

    refused::<Identifiers>(json!({
        "id": "not-a-uuid", "amount": "1", "homepage": "https://e.com", "v4": "1.2.3.4",
        "v6": "::1", "either": "::1"
    }));
    refused::<Identifiers>(json!({
        "id": "00000000-0000-0000-0000-000000000000", "amount": "1.2.3",
        "homepage": "https://e.com", "v4": "1.2.3.4", "v6": "::1", "either": "::1"
    }));
    refused::<Identifiers>(json!({
        "id": "00000000-0000-0000-0000-000000000000", "amount": "1",
        "homepage": "https://e.com", "v4": "1.2.3.256", "v6": "::1", "either": "::1"
    }));
    refused::<ChronoTimes>(json!({
        "day": "2026-13-01", "instant": "2026-01-01T00:00:00Z",
        "offset_instant": "2026-01-01T00:00:00+01:00", "local": "2026-01-01T00:00:00",
        "clock": "00:00:00"
    }));
    refused::<ChronoTimes>(json!({
        "day": "2026-01-01", "instant": "yesterday",
        "offset_instant": "2026-01-01T00:00:00+01:00", "local": "2026-01-01T00:00:00",
        "clock": "00:00:00"
    }));
    refused::<ChronoTimes>(json!({
        "day": "2026-01-01", "instant": "2026-01-01T00:00:00Z",
        "offset_instant": "2026-01-01T00:00:00+01:00", "local": "2026-01-01 00:00",
        "clock": "00:00:00"
    }));

    refused::<Color>(json!("purple"));
    refused::<Color>(json!("blue"));
    refused::<Shape>(json!({"Circle": "big"}));
    refused::<Shape>(json!({"Hexagon": 1}));
    refused::<Shape>(json!({"Rectangle": [1.0]}));
    refused::<Event>(json!({"user": "ada"}));
    refused::<Event>(json!({"type": "signed_in", "user": "ada"}));
    refused::<Event>(json!({"type": "paid", "amount_cents": -1, "currency": "EUR"}));
    refused::<Message>(json!({"kind": "Text"}));
    refused::<Message>(json!({"kind": "Edit", "body": {"message_id": 1, "new_text": "x"}}));
    refused::<Setting>(json!(1.5));

    refused::<Customer>(json!({"name": "A", "favourite": "red"}));
    refused::<Customer>(json!({
        "name": "A", "favourite": "red",
        "billing": {"street": "s", "city": "c", "country": 7}
    }));
    refused::<Tree>(json!({"label": "root", "children": [{"label": 1, "children": []}]}));
    refused::<Expr>(
        json!({"op": "add", "left": {"op": "literal", "value": 1}, "right": {"op": "pow"}}),
    );
    refused::<SerdeNames>(
        json!({"firstName": "A", "surname": "L", "emailAddress": "e", "extra": 1}),
    );
    refused::<SerdeNames>(json!({"first_name": "A", "surname": "L", "emailAddress": "e"}));
    refused::<Flattened>(json!({"query": "q", "per_page": "ten"}));
    refused::<Flattened>(json!({"query": "q", "per_page": 10, "colour": 3}));
    refused::<Shapes>(json!({"sku": {"code": "x"}, "length": 1.0, "at": [1, 2], "marker": null}));
}

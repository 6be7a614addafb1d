//! The date and time schemas of chrono's and time's types accept exactly
//! the strings of their form that the crates read: every year's 29th of
//! February, every month's last days, every hour, minute and second.

use serde::de::DeserializeOwned;
use serde_json::Value;
use toolschema::Schema;
use toolschema::model::Direction;
use toolschema::render::render_schema;

/// Whether `T`'s schema and serde agree on `text`; the disagreement if not.
struct Agreement<T> {
    schema: jsonschema::Validator,
    read: fn(&str) -> bool,
    _type: core::marker::PhantomData<T>,
}

impl<T: Schema + DeserializeOwned> Agreement<T> {
    fn new() -> Self {
        let schema = render_schema(T::SCHEMA, Direction::Input).to_value();
        Agreement {
            schema: jsonschema::options()
                .should_validate_formats(true)
                .build(&schema)
                .expect("compiles"),
            read: |text| serde_json::from_value::<T>(Value::String(text.into())).is_ok(),
            _type: core::marker::PhantomData,
        }
    }

    /// `text` accepted by the schema ⇒ read; `read_too` says whether a
    /// string the crate reads must be accepted as well (the form is one the
    /// schema describes).
    fn check(&self, text: &str, exact: bool, out: &mut Vec<String>) {
        let advertised = self.schema.is_valid(&Value::String(text.into()));
        let read = (self.read)(text);
        if advertised && !read {
            out.push(format!(
                "{}: {text:?} advertised, not read",
                core::any::type_name::<T>()
            ));
        }
        if exact && read && !advertised {
            out.push(format!(
                "{}: {text:?} read, not advertised",
                core::any::type_name::<T>()
            ));
        }
    }
}

fn years(range: core::ops::RangeInclusive<i32>, signs: bool) -> Vec<String> {
    let mut out = Vec::new();
    for year in range {
        let digits = format!("{:04}", year.unsigned_abs());
        if year >= 0 && digits.len() == 4 {
            out.push(digits.clone());
        }
        if signs || year < 0 {
            out.push(format!("{}{digits}", if year < 0 { '-' } else { '+' }));
        }
    }
    out
}

#[test]
fn every_leap_day_and_month_end_is_judged_as_the_crates_judge_it() {
    let mut wrong = Vec::new();
    let chrono_date_time = Agreement::<chrono::NaiveDateTime>::new();
    let time_date_time = Agreement::<time::PrimitiveDateTime>::new();
    let time_offset = Agreement::<time::OffsetDateTime>::new();
    // Every year chrono writes with four or five digits, on the days whose
    // validity turns on the year.
    for year in years(-99_999..=99_999, true) {
        for day in ["02-28", "02-29", "02-30"] {
            let text = format!("{year}-{day}T00:00:00");
            // Five-digit years are read only with a sign, as chrono writes
            // them; both forms are described.
            chrono_date_time.check(&text, true, &mut wrong);
        }
    }
    for year in years(-9_999..=9_999, true) {
        for day in ["02-28", "02-29", "02-30"] {
            time_date_time.check(&format!("{year}-{day} 00:00:00.0"), true, &mut wrong);
        }
    }
    // Every month and day number, in a leap year and a common one.
    for year in ["2000", "1900", "2024", "2023", "0000"] {
        for month in 0..=13 {
            for day in 0..=32 {
                let date = format!("{year}-{month:02}-{day:02}");
                chrono_date_time.check(&format!("{date}T12:30:00"), true, &mut wrong);
                time_date_time.check(&format!("{date} 12:30:00.5"), true, &mut wrong);
                time_offset.check(&format!("{date} 12:30:00.5 +01:00:00"), true, &mut wrong);
            }
        }
    }
    // Every time of day's fields at and past their ends.
    let chrono_time = Agreement::<chrono::NaiveTime>::new();
    let time_time = Agreement::<time::Time>::new();
    for hour in 0..=24 {
        for minute in [0, 59, 60] {
            for second in [0, 59, 60, 61] {
                let clock = format!("{hour:02}:{minute:02}:{second:02}");
                chrono_time.check(&clock, true, &mut wrong);
                chrono_time.check(&format!("{clock}.123456789"), true, &mut wrong);
                time_time.check(&format!("{clock}.5"), true, &mut wrong);
                chrono_date_time.check(&format!("2000-01-01T{clock}"), true, &mut wrong);
            }
        }
    }
    for offset in [
        "+00:00:00",
        "-00:00:00",
        "+25:59:59",
        "-25:59:59",
        "+26:00:00",
        "+01:60:00",
        "+01:00:60",
    ] {
        time_offset.check(&format!("2000-01-01 00:00:00.5 {offset}"), true, &mut wrong);
    }
    wrong.truncate(20);
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// chrono's `DateTime` and the RFC 3339 form of the time crate read every
/// `date-time` the library accepts.
#[test]
fn rfc3339_date_times_are_read() {
    let mut wrong = Vec::new();
    let utc = Agreement::<chrono::DateTime<chrono::Utc>>::new();
    let fixed = Agreement::<chrono::DateTime<chrono::FixedOffset>>::new();
    let rfc3339 = jsonschema::options()
        .should_validate_formats(true)
        .build(
            &render_schema(
                <toolschema::formats::Rfc3339 as Schema>::SCHEMA,
                Direction::Input,
            )
            .to_value(),
        )
        .expect("compiles");
    for date in ["2000-02-29", "1900-02-28", "0000-01-01", "9999-12-31"] {
        for separator in ["T", "t"] {
            for clock in [
                "00:00:00",
                "23:59:59",
                "23:59:60",
                "12:30:60",
                "00:00:00.1234567891234",
            ] {
                for offset in ["Z", "z", "+00:00", "-00:00", "+23:59", "-23:59", "+24:00"] {
                    let text = format!("{date}{separator}{clock}{offset}");
                    utc.check(&text, false, &mut wrong);
                    fixed.check(&text, false, &mut wrong);
                    if rfc3339.is_valid(&Value::String(text.clone()))
                        && time::OffsetDateTime::parse(
                            &text,
                            &time::format_description::well_known::Rfc3339,
                        )
                        .is_err()
                    {
                        wrong.push(format!("Rfc3339: {text:?} advertised, not read"));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

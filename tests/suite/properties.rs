//! Property tests: for random values, serialize -> expose names -> validate
//! -> map back -> deserialize gives the same value.

use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use toolschema::Tool;
use toolschema::model::Direction;
use toolschema::validate::{InputValidator, Limits};
use toolschema::validate::{Names, rename};

use crate::calls::{Delivery, OrderLine, PlaceOrder, Priority};
use crate::corpus::{Evaluate, Expr};

fn through_the_call_path<T>(value: &T) -> Result<T, String>
where
    T: Tool + Serialize + DeserializeOwned,
{
    let mut json = serde_json::to_value(value).map_err(|e| e.to_string())?;
    rename(&T::TOOL.input, &mut json, Names::Exposed, Direction::Input);
    let validator = InputValidator::new(T::TOOL, Limits::default());
    let checked = validator
        .check_value(json.clone())
        .map_err(|e| format!("{json}: {e}"))?;
    serde_json::from_value(checked).map_err(|e| e.to_string())
}

fn order_line() -> impl Strategy<Value = OrderLine> {
    ("[A-Z0-9-]{0,10}", 1u8..=99, any::<u32>()).prop_map(
        |(product_code, quantity, unit_price_cents)| OrderLine {
            product_code,
            quantity,
            unit_price_cents,
        },
    )
}

fn delivery() -> impl Strategy<Value = Delivery> {
    (
        "[ -~]{0,20}",
        "[0-9]{5}",
        proptest::option::of(any::<bool>()),
    )
        .prop_map(|(street_address, postal_code, leave_at_door)| Delivery {
            street_address,
            postal_code,
            leave_at_door,
        })
}

/// Random valid orders (shared with the fast-path agreement tests).
pub fn place_order() -> impl Strategy<Value = PlaceOrder> {
    (
        "[A-Za-z][A-Za-z '\"]{0,39}",
        "[a-z]{1,8}@[a-z]{1,8}\\.com",
        proptest::collection::vec(order_line(), 1..20),
        proptest::option::of(delivery()),
        any::<bool>(),
        prop_oneof![Just(Priority::Standard), Just(Priority::Express)],
    )
        .prop_map(
            |(customer_name, contact_email, line_items, delivery, gift_wrap, priority)| {
                PlaceOrder {
                    customer_name,
                    contact_email,
                    line_items,
                    delivery,
                    gift_wrap,
                    priority,
                }
            },
        )
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = any::<i64>().prop_map(|value| Expr::Literal { value });
    leaf.prop_recursive(6, 40, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(l, r)| Expr::Add {
                left: Box::new(l),
                right: Box::new(r),
            }),
            inner.prop_map(|e| Expr::Negate {
                operand: Box::new(e)
            }),
        ]
    })
}

proptest! {
    #[test]
    fn orders_survive_the_call_path(order in place_order()) {
        let back = through_the_call_path(&order);
        prop_assert_eq!(back, Ok(order));
    }

    #[test]
    fn recursive_expressions_survive_the_call_path(
        expression in expr(),
        explain in proptest::option::of(any::<bool>()),
    ) {
        let call = Evaluate { expression, explain };
        let back = through_the_call_path(&call);
        prop_assert_eq!(back, Ok(call));
    }
}

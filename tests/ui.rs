//! Compile-time rules: every mistake in an annotation is a compile error at
//! the offending token. One case per mistake, grouped by rule; the expected
//! `.stderr` beside each case is what is tested.

#[test]
fn compile_time_rules() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*/*.rs");
}

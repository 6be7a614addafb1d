//! Compile-time rules: every mistake in an annotation is a compile error at
//! the offending token. One case per mistake, grouped by rule; the expected
//! `.stderr` beside each case is what is tested.

#[test]
fn compile_time_rules() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*/*.rs");
}

/// A user's snapshot of these errors holds across any edit of the library's
/// private module: no expected error shows a line of it, or names it.
#[test]
fn no_case_points_into_the_private_module() {
    let mut cases = 0;
    for group in std::fs::read_dir("tests/ui").expect("tests/ui") {
        let group = group.expect("an entry").path();
        for case in std::fs::read_dir(&group).expect("a group") {
            let path = case.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "stderr") {
                let text = std::fs::read_to_string(&path).expect("read");
                assert!(
                    !text.contains("__private"),
                    "{} shows the library's private module",
                    path.display()
                );
                cases += 1;
            }
        }
    }
    assert!(cases > 70, "{cases} expected errors read");
}

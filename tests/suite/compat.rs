//! Breaking-change reports between the versions of a derived tool, as the
//! clients of each mode see them.

use toolschema::Tool;
use toolschema::compat::{Level, compare_tools};
use toolschema::project::{Mode, Profile};
use toolschema_demo::{RefundV1, RefundV2};

#[test]
fn a_new_required_argument_breaks_the_clients_that_see_the_arguments() {
    let full = compare_tools(RefundV1::TOOL, RefundV2::TOOL, Mode::Full, Profile::Default);
    let changes: Vec<(&str, Level, &str)> = full
        .changes()
        .iter()
        .map(|c| (c.rule, c.level, c.pointer.as_str()))
        .collect();
    assert!(
        changes.contains(&(
            "required-property-added",
            Level::Breaking,
            "/inputSchema/required/reason"
        )),
        "{changes:?}"
    );
    assert!(full.breaks());
    assert_eq!(
        changes[0].0, "required-property-added",
        "the breaking change comes first: {changes:?}"
    );
    assert!(
        changes
            .iter()
            .all(|(_, level, pointer)| *level != Level::Breaking
                || pointer.starts_with("/inputSchema")),
        "the results did not change: {changes:?}"
    );

    // A Lazy client's listed tool carries no arguments: nothing it was
    // shown breaks (it reads the arguments from discover_tool_schema,
    // whose Full descriptor is compared above).
    let lazy = compare_tools(RefundV1::TOOL, RefundV2::TOOL, Mode::Lazy, Profile::Default);
    assert!(
        lazy.changes()
            .iter()
            .all(|c| !c.pointer.starts_with("/inputSchema/required")),
        "{:?}",
        lazy.changes()
    );
}

#[test]
fn the_same_version_compared_with_itself_changes_nothing() {
    for mode in [Mode::Full, Mode::DataStructureOnly, Mode::Lazy] {
        for profile in [Profile::Default, Profile::OpenAiStrict, Profile::Gemini] {
            let report = compare_tools(RefundV2::TOOL, RefundV2::TOOL, mode, profile);
            assert!(
                report.is_empty(),
                "{mode:?} {profile:?}: {:?}",
                report.changes()
            );
        }
    }
}

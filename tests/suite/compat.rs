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

/// Reads the forecast.
#[derive(Tool, serde::Deserialize)]
#[tool(name = "forecast", version = 1)]
#[allow(dead_code, reason = "read by the schema only")]
struct ForecastV1 {
    /// The city.
    city: String,
}

/// Reads the forecast.
#[derive(Tool, serde::Deserialize)]
#[tool(name = "forecast", version = 2)]
#[allow(dead_code, reason = "read by the schema only")]
struct ForecastV2 {
    /// The city.
    city: String,
    /// How many days ahead.
    days: Option<u32>,
}

#[test]
fn arguments_are_compared_as_calls_are_validated_whatever_the_profile_shows() {
    // OpenAI strict mode shows `days` as required and nullable; a call
    // without it is still valid (`null` or absent, the default dialect
    // is what validates), so no client of version 1 breaks.
    for profile in [Profile::Default, Profile::OpenAiStrict, Profile::Gemini] {
        let report = compare_tools(ForecastV1::TOOL, ForecastV2::TOOL, Mode::Full, profile);
        assert!(!report.breaks(), "{profile:?}: {:?}", report.changes());
        assert!(
            report
                .changes()
                .iter()
                .any(|c| c.rule == "property-added" && c.pointer == "/inputSchema/properties/days"),
            "{profile:?}: {:?}",
            report.changes()
        );
    }
    // The other way, an argument old clients send is gone from a closed
    // object: breaking in every dialect.
    for profile in [Profile::Default, Profile::OpenAiStrict, Profile::Gemini] {
        let report = compare_tools(ForecastV2::TOOL, ForecastV1::TOOL, Mode::Full, profile);
        assert!(report.breaks(), "{profile:?}: {:?}", report.changes());
    }
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

#[test]
fn two_versions_of_a_configuration_are_compared_as_each_mode_and_profile_shows_them() {
    use toolschema::catalog::Config;
    use toolschema::catalog::versions::compare_versions;

    let registry = toolschema_demo::registry();
    let config = Config::from_toml(toolschema_demo::CATALOG_TOML, "catalog.toml", &registry)
        .expect("the demo configuration");
    let reports = compare_versions(Some(&config), &registry, "billing.refund", 1, 2)
        .expect("both registered");
    assert!(
        reports
            .iter()
            .any(|r| r.mode == Mode::Full && r.profile == Profile::Default),
        "Full, as discover_tool_schema returns it, in the default dialect"
    );
    for report in &reports {
        assert!(
            report
                .report
                .changes()
                .iter()
                .any(|c| c.rule == "required-property-added"
                    && c.level == Level::Breaking
                    && c.pointer == "/inputSchema/required/reason"),
            "{:?} {:?}: {:?}",
            report.mode,
            report.profile,
            report.report.changes()
        );
    }

    // Without a configuration (open mode): Full, the default dialect.
    let open = compare_versions(None, &registry, "billing.refund", 1, 2).expect("registered");
    assert_eq!(open.len(), 1);
    assert_eq!(
        (open[0].mode, open[0].profile, open[0].report.breaks()),
        (Mode::Full, Profile::Default, true)
    );

    let missing = compare_versions(Some(&config), &registry, "billing.refund", 1, 9)
        .expect_err("no version 9");
    assert_eq!(
        missing.to_string(),
        "`billing.refund` has no version 9 (its versions: 1, 2)"
    );
}

/// The REST gateway example's catalog as a snapshot, `edit` applied to its
/// text.
fn gateway_example(
    edit: impl Fn(String) -> String,
) -> std::sync::Arc<toolschema::catalog::Snapshot> {
    let text = include_str!("../../examples/rest-gateway/catalog.toml");
    toolschema::catalog::Catalog::from_toml(
        toolschema::call::Registry::new(),
        &edit(text.to_owned()),
        "catalog.toml",
    )
    .expect("the example checks")
    .snapshot()
}

#[test]
fn two_catalogs_are_compared_client_by_client() {
    use toolschema::catalog::versions::compare_catalogs;

    // Built twice from the same text, the configured tools are other
    // values with the same content: nothing changed for anyone.
    let same = compare_catalogs(&gateway_example(|t| t), &gateway_example(|t| t));
    assert_eq!(same, Default::default(), "{same:?}");

    // notes.create's text gets shorter: a tightened bound, breaking for
    // the one client that sees it, in Full (its toolset's mode).
    let shorter = |t: String| t.replacen("max_length = 2000", "max_length = 500", 1);
    let report = compare_catalogs(&gateway_example(|t| t), &gateway_example(shorter));
    let seen: Vec<(&str, Mode, &[String], bool)> = report
        .changes
        .iter()
        .map(|c| (&*c.tool, c.mode, &*c.clients, c.report.breaks()))
        .collect();
    assert_eq!(seen.len(), 1, "{report:#?}");
    let (tool, mode, clients, breaks) = seen[0];
    assert_eq!((tool, mode, breaks), ("notes.create", Mode::Full, true));
    assert_eq!(clients.len(), 1, "{clients:?}");
    let change = &report.changes[0].report.changes()[0];
    assert_eq!(change.rule, "bound-tightened", "{change:?}");
    assert_eq!(change.pointer, "/inputSchema/properties/text/maxLength");
    assert!(report.breaks());

    // The way back widens the arguments: it breaks no one.
    let back = compare_catalogs(&gateway_example(shorter), &gateway_example(|t| t));
    assert_eq!(back.changes.len(), 1, "{back:#?}");
    assert!(!back.breaks(), "{back:#?}");
}

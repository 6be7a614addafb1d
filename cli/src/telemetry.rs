//! OpenTelemetry export of `toolschema serve`, configured by the standard
//! variables: on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces' or
//! metrics' own endpoint) is set, or `OTEL_TRACES_EXPORTER` /
//! `OTEL_METRICS_EXPORTER` is `otlp`; off with `OTEL_SDK_DISABLED=true`.
//! Spans and metrics go by OTLP over HTTP (protobuf), batched on threads of
//! their own; `OTEL_SERVICE_NAME` names the service (`toolschema` by
//! default), and the exporter's other `OTEL_EXPORTER_OTLP_*` variables
//! (headers, timeout, protocol) apply as the OpenTelemetry SDK reads them.

use opentelemetry_otlp::{MetricExporter, SpanExporter};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use toolschema::serve::Telemetry;

/// The providers exporting the server's spans and metrics.
pub(crate) struct Exporting {
    tracers: SdkTracerProvider,
    meters: SdkMeterProvider,
}

fn set(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

/// The export the environment asks for, if any. Built outside the async
/// runtime (the HTTP client it uses has a runtime of its own).
pub(crate) fn from_environment() -> Result<Option<Exporting>, String> {
    if set("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        return Ok(None);
    }
    let otlp = |name: &str| set(name).is_some_and(|v| v.eq_ignore_ascii_case("otlp"));
    let wanted = [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    ]
    .iter()
    .any(|name| set(name).is_some())
        || otlp("OTEL_TRACES_EXPORTER")
        || otlp("OTEL_METRICS_EXPORTER");
    if !wanted {
        return Ok(None);
    }
    let resource = match set("OTEL_SERVICE_NAME") {
        Some(_) => Resource::builder().build(),
        None => Resource::builder().with_service_name("toolschema").build(),
    };
    let spans = SpanExporter::builder()
        .with_http()
        .build()
        .map_err(|e| format!("cannot export traces by OTLP: {e}"))?;
    let metrics = MetricExporter::builder()
        .with_http()
        .build()
        .map_err(|e| format!("cannot export metrics by OTLP: {e}"))?;
    Ok(Some(Exporting {
        tracers: SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .with_resource(resource.clone())
            .build(),
        meters: SdkMeterProvider::builder()
            .with_periodic_exporter(metrics)
            .with_resource(resource)
            .build(),
    }))
}

impl Exporting {
    /// What the server traces and measures with.
    pub(crate) fn telemetry(&self) -> Telemetry {
        Telemetry::new(&self.tracers, &self.meters)
    }

    /// Sends what is left, then stops.
    pub(crate) fn shutdown(self) {
        if let Err(error) = self.tracers.shutdown() {
            tracing::warn!(%error, "traces not all exported");
        }
        if let Err(error) = self.meters.shutdown() {
            tracing::warn!(%error, "metrics not all exported");
        }
    }
}

//! The adapter to `rmcp`, the official Rust MCP SDK: the only module that
//! names it, so that its frequent releases touch one file.
//!
//! It serves one client application's tools through the SDK's own path:
//! `tools/list` builds SDK `Tool` values and the SDK serializes them on every
//! request. The `toolschema` server answers from the snapshot's bytes
//! instead; `cargo bench -p toolschema-bench-http --features rmcp`
//! compares the two, and the faster one (ours) is what the binary serves.

use std::sync::Arc;
use toolschema::project::ProtocolRevision;

use rmcp::model::{
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use toolschema::catalog::Catalog;

/// One client application's tools, as SDK values.
#[derive(Clone)]
struct Listed {
    tools: Arc<Vec<Tool>>,
}

impl ServerHandler for Listed {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }
}

/// An axum-mountable service answering MCP for `client` through the SDK,
/// stateless and with JSON responses, like the `toolschema` server.
pub fn service(
    catalog: &Catalog,
    client: &str,
) -> Result<StreamableHttpService<impl ServerHandler, LocalSessionManager>, String> {
    let snapshot = catalog.snapshot();
    let view = snapshot
        .client(client)
        .ok_or_else(|| format!("there is no client application `{client}`"))?;
    let tools: Vec<Tool> = view
        .entries(ProtocolRevision::LATEST)
        .iter()
        .map(|entry| {
            serde_json::from_str(entry).map_err(|e| format!("the SDK cannot read a tool: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let listed = Listed {
        tools: Arc::new(tools),
    };
    let mut config = StreamableHttpServerConfig::default();
    config.legacy_session_mode = false;
    config.json_response = true;
    Ok(StreamableHttpService::new(
        move || Ok(listed.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    ))
}

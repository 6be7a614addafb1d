//! A client's view narrowed to what an access token's scopes unlock, and
//! why a tool it does not see is refused for want of scopes.

use core::fmt;
use std::collections::HashMap;
use std::sync::Arc;

use arc_swap::ArcSwap;

use super::{ClientView, Renders, Snapshot, plan_of, sets_in_force, shared};

/// What building, on first use, the view of a client narrowed to the
/// toolsets a token's scopes unlock needs beside the configuration.
pub(super) struct Scoped {
    /// Views built so far, by client and the toolsets in force: read
    /// without a lock, a new one added by copying the map (at most
    /// [`MOST_NARROWED`]; past them views are built for each request).
    pub(super) views: ArcSwap<HashMap<NarrowedKey, Arc<ClientView>>>,
}

/// The most narrowed views a snapshot keeps.
const MOST_NARROWED: usize = 4_096;

/// A client's id and the toolsets in force for a token of it.
type NarrowedKey = (String, Vec<String>);

impl Snapshot {
    /// `view` narrowed to what a token holding `scopes` may use: the
    /// toolsets whose scopes it holds, every one of them (toolsets that
    /// require none are always in force). Built once per client and set of
    /// toolsets, then shared.
    pub fn view_for_scopes(&self, view: &Arc<ClientView>, scopes: &[&str]) -> Arc<ClientView> {
        let Some(scoped) = &self.scoped else {
            return view.clone();
        };
        let Some(config) = &self.config else {
            return view.clone();
        };
        let Some(client) = config.client(view.id()) else {
            return view.clone();
        };
        // The usual token holds what all its client's toolsets need: the
        // client's own view, without building a list.
        let holds = |id: &str| {
            config.toolset(id).is_none_or(|set| {
                set.scopes()
                    .iter()
                    .all(|needed| scopes.contains(&needed.as_str()))
            })
        };
        if client.toolsets().all(holds) {
            return view.clone();
        }
        let sets = sets_in_force(config, client, Some(scopes));
        // What it lacks may only be needed by toolsets not in force.
        if sets == sets_in_force(config, client, None) {
            return view.clone();
        }
        let key = (
            client.id().to_owned(),
            sets.iter().map(|s| (*s).to_owned()).collect(),
        );
        if let Some(found) = scoped.views.load().get(&key) {
            return found.clone();
        }
        let plan = plan_of(config, &self.active, &sets);
        let narrowed = Arc::new(ClientView {
            id: view.id.clone(),
            tenant: view.tenant.clone(),
            profile: view.profile,
            shared: Arc::new(shared(
                view.profile,
                &plan,
                &Renders::default(),
                &self.search_ranking,
            )),
        });
        scoped.views.rcu(|views| {
            let mut views = HashMap::clone(views);
            if views.len() < MOST_NARROWED {
                views.entry(key.clone()).or_insert_with(|| narrowed.clone());
            }
            views
        });
        narrowed
    }

    /// Why the caller of `view`, whose access token holds the scopes
    /// `held`, may not call `tool`: a tool its client's own view has, in a
    /// toolset those scopes do not unlock. `None` when `view` has the
    /// tool, or its client has no such tool (none of its toolsets names
    /// it, or no published version is served): then it is unknown, as for
    /// anyone.
    ///
    /// ```
    /// use toolschema_catalog::Catalog;
    /// use toolschema_runtime::call::Registry;
    ///
    /// let text = r#"
    /// [authorization]
    /// issuer = "https://idp.example.com"
    /// resource = "https://mcp.example.com/mcp"
    /// [[tenant]]
    /// id = "acme"
    /// [[client]]
    /// id = "finance"
    /// tenant = "acme"
    /// toolsets = ["notes"]
    /// [[toolset]]
    /// id = "notes"
    /// tenant = "acme"
    /// tools = ["notes.delete"]
    /// scopes = ["notes:write", "notes:admin"]
    /// [[downstream]]
    /// id = "notes"
    /// base_url = "http://notes.internal"
    /// [[gateway_tool]]
    /// name = "notes.delete"
    /// downstream = "notes"
    /// [[gateway_tool.version]]
    /// version = 1
    /// status = "published"
    /// description = "Deletes every note."
    /// method = "DELETE"
    /// path = "/notes"
    /// "#;
    /// let snapshot = Catalog::from_toml(Registry::new(), text, "catalog.toml").unwrap().snapshot();
    /// let client = snapshot.client("finance").unwrap();
    /// let held = ["notes:write".to_owned()];
    /// let narrowed = snapshot.view_for_scopes(client, &["notes:write"]);
    /// let denial = snapshot.denial(&narrowed, "notes.delete", &held).unwrap();
    /// assert_eq!(denial.scopes(), ["notes:write", "notes:admin"]);
    /// assert_eq!(
    ///     denial.to_string(),
    ///     "calling `notes.delete` needs a token with the scopes: notes:write notes:admin"
    /// );
    /// // Unknown to the client: no denial, the tool is unknown.
    /// assert!(snapshot.denial(&narrowed, "notes.purge", &held).is_none());
    /// // Seen with the scopes it needs: nothing to deny.
    /// assert!(snapshot.denial(client, "notes.delete", &[]).is_none());
    /// ```
    pub fn denial(&self, view: &ClientView, tool: &str, held: &[String]) -> Option<Denial> {
        if view.def_of(tool).is_some() {
            return None;
        }
        self.scoped.as_ref()?;
        self.client(view.id())?.def_of(tool)?;
        let config = self.config.as_ref()?;
        let client = config.client(view.id())?;
        let granting = sets_in_force(config, client, None)
            .into_iter()
            .filter_map(|id| config.toolset(id))
            .filter(|set| set.tools().any(|name| name == tool));
        let mut fewest: Option<&[String]> = None;
        for set in granting {
            let needed = set.scopes();
            if needed.iter().all(|scope| held.contains(scope)) {
                return None;
            }
            if fewest.is_none_or(|f| needed.len() < f.len()) {
                fewest = Some(needed);
            }
        }
        Some(Denial {
            tool: tool.to_owned(),
            scopes: fewest?.to_vec(),
        })
    }
}

/// A call refused because the caller's access token lacks scopes the tool
/// needs (OAuth's `insufficient_scope`): over HTTP, a `403` whose
/// challenge names the scopes to ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    tool: String,
    scopes: Vec<String>,
}

impl Denial {
    /// The tool asked for.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The scopes a token needs to call it: those of the toolset that
    /// grants it and needs the fewest, all of them.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }
}

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "calling `{}` needs a token with the scopes: {}",
            self.tool,
            self.scopes.join(" ")
        )
    }
}

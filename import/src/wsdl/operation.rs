//! One operation of a WSDL binding as a configured tool: its request and
//! response elements' fields as arguments and results, written as a
//! `[[gateway_tool]]` with one draft version.

use std::borrow::Cow;

use super::header::headers;
use super::types::{At, Fields, Naming, Role, Types};
use super::{WSDL, XSD, child, documentation, local, message_parts};
use crate::field::field_section;
use crate::names::{kebab, snake};
use crate::sections;
use crate::{ImportOptions, prompt_markup};
use toolschema_gateway::xml::Element;

/// `GetQuote` → `Get quote.`, for an operation without documentation.
fn sentence(name: &str) -> String {
    let words = snake(name).replace('_', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => format!("{}{}.", first.to_ascii_uppercase(), chars.as_str()),
        None => "Calls the operation.".to_owned(),
    }
}

/// The element a message's one part names (document/literal).
fn message_element<'a>(root: &'a Element<'a>, message: &str) -> Result<&'a str, String> {
    match message_parts(root, message)?[..] {
        [part] => match part.attribute("element") {
            Some(element) => Ok(local(element)),
            None => Err(format!(
                "the message `{}` has a part of a type rather than an element, which document style does not use",
                local(message)
            )),
        },
        ref parts => Err(format!(
            "the message `{}` has {} parts; document/literal operations have one",
            local(message),
            parts.len()
        )),
    }
}

/// The fields of an rpc/literal message: each part an element named after
/// it inside the operation's wrapper, unqualified (WS-I Basic Profile
/// R2735), of the part's type. An answer of one part of a complex type is
/// read through it, so that clients see its fields at the top.
fn rpc_fields(
    root: &Element<'_>,
    types: &Types<'_>,
    message: &str,
    body: Option<&Element<'_>>,
    role: Role,
    out: &mut Fields,
) -> Result<(), String> {
    let mut parts = message_parts(root, message)?;
    // `soap:body parts="…"` names the parts the body carries.
    if let Some(named) = body.and_then(|b| b.attribute("parts")) {
        let named: Vec<&str> = named.split_whitespace().collect();
        parts.retain(|part| part.attribute("name").is_some_and(|n| named.contains(&n)));
    }
    let mut declarations = Vec::with_capacity(parts.len());
    for part in &parts {
        let name = part
            .attribute("name")
            .ok_or_else(|| format!("the message `{}` has a part without a name", local(message)))?;
        let Some(kind) = part.attribute("type") else {
            return Err(format!(
                "the part `{name}` of the rpc message `{}` names an element rather than a type, which rpc style does not use",
                local(message)
            ));
        };
        // The gateway writes every element below the wrapper alike: parts
        // are unqualified, so their types' elements must be too.
        if types.qualifies(local(kind), &mut Vec::new()) {
            return Err(format!(
                "the part `{name}` is of the type `{}`, whose elements are qualified (its schema's `elementFormDefault`, a `ref` or a `form`) while rpc parts are unqualified; the gateway cannot write both",
                local(kind)
            ));
        }
        declarations.push(Element {
            name: "element".to_owned(),
            namespace: Some(XSD.to_owned()),
            attributes: vec![
                ("name".to_owned(), name.to_owned()),
                ("type".to_owned(), kind.to_owned()),
            ],
            children: Vec::new(),
            text: Cow::Borrowed(""),
        });
    }
    let mut at = At {
        exposed: String::new(),
        source: String::new(),
        required: true,
        depth: 0,
        role,
        schema: None,
    };
    if role == Role::Result
        && let [only] = &declarations[..]
        && let Some(complex) = only
            .attribute("type")
            .and_then(|kind| types.complex.get(local(kind)))
    {
        at.source = only.attribute("name").unwrap_or_default().to_owned();
        return types.content(complex, &at, &mut Vec::new(), out);
    }
    for declaration in &declarations {
        types.element(declaration, &at, &mut Vec::new(), out)?;
    }
    Ok(())
}

/// One operation's tool as written.
pub(super) struct Written {
    /// The tool's name.
    pub(super) name: String,
    /// Its `[[gateway_tool]]`.
    pub(super) section: sections::ToolSection,
    /// What an operator should read in it.
    pub(super) notes: Vec<String>,
    /// Its credential header blocks: each element, its secret, and whether
    /// the operator named it.
    pub(super) credentials: Vec<(String, String, bool)>,
}

/// One operation's tool, or why it is skipped.
pub(super) fn tool(
    root: &Element<'_>,
    types: &Types<'_>,
    operation: &Element<'_>,
    abstract_operation: Option<&Element<'_>>,
    binding_namespace: &str,
    binding_style: &str,
    options: &ImportOptions,
) -> Result<Written, String> {
    let name = operation.attribute("name").unwrap_or_default();
    let soap_operation = child(operation, binding_namespace, "operation");
    let style = soap_operation
        .and_then(|o| o.attribute("style"))
        .unwrap_or(binding_style);
    if style != "document" && style != "rpc" {
        return Err(format!(
            "it is an `{style}` style operation; document and rpc operations are imported"
        ));
    }
    let rpc = style == "rpc";
    let body = |direction| {
        child(operation, WSDL, direction).and_then(|d| child(d, binding_namespace, "body"))
    };
    let (input_body, output_body) = (body("input"), body("output"));
    for body in [input_body, output_body] {
        if body.and_then(|b| b.attribute("use")) == Some("encoded") {
            return Err("its messages are SOAP-encoded; only literal ones are imported".to_owned());
        }
    }
    let body_namespace = input_body.and_then(|b| b.attribute("namespace"));
    let Some(abstract_operation) = abstract_operation else {
        return Err("the port type does not define it".to_owned());
    };
    let input = child(abstract_operation, WSDL, "input")
        .and_then(|i| i.attribute("message"))
        .ok_or("it has no input message")?;
    let output = child(abstract_operation, WSDL, "output").and_then(|o| o.attribute("message"));
    // A request's elements of other namespaces are named with prefixes;
    // rpc parts are unqualified, as the types inside them must be.
    let mut arguments = Fields::new(Some(Naming::default()));
    let mut results = Fields::new(None);
    // The element the request's body holds, its namespace, and whether the
    // elements inside it are qualified.
    let (request, namespace, qualified) = if rpc {
        rpc_fields(
            root,
            types,
            input,
            input_body,
            Role::Argument,
            &mut arguments,
        )?;
        if let Some(output) = output {
            rpc_fields(root, types, output, output_body, Role::Result, &mut results)?;
        }
        // The wrapper is the operation, in the body's namespace (WS-I
        // R2717 asks for one), else the document's.
        let namespace = body_namespace.or(root.attribute("targetNamespace"));
        (name, namespace, false)
    } else {
        let request = message_element(root, input)?;
        let response = output.map(|o| message_element(root, o)).transpose()?;
        let (_, schema) = types.elements.get(request).ok_or_else(|| {
            format!("the element `{request}` is not defined in the document's types")
        })?;
        let (namespace, qualified) = types.schemas[*schema];
        arguments.naming = Some(Naming {
            unprefixed: namespace.filter(|_| qualified).map(str::to_owned),
            prefixes: Vec::new(),
        });
        types.fields(request, Role::Argument, &mut arguments)?;
        if let Some(response) = response {
            types.fields(response, Role::Result, &mut results)?;
        }
        (request, namespace, qualified)
    };
    let headers = headers(
        root,
        types,
        child(operation, WSDL, "input"),
        binding_namespace,
        (namespace, qualified),
        (&arguments.taken, arguments.naming.as_mut()),
        options,
    )?;
    let prefixes = arguments
        .naming
        .take()
        .map(|naming| naming.prefixes.into_iter().collect())
        .unwrap_or_default();
    let tool_name = format!("{}{}", options.prefix, kebab(name));
    let description = documentation(abstract_operation)
        .or_else(|| documentation(operation))
        .unwrap_or_else(|| sentence(name));
    let version = sections::VersionSection {
        version: 1,
        status: "draft".into(),
        description,
        operation: Some(request.to_owned()),
        namespace: namespace.map(str::to_owned),
        soap_action: soap_operation
            .and_then(|o| o.attribute("soapAction"))
            .filter(|a| !a.is_empty())
            .map(str::to_owned),
        qualified: Some(qualified),
        prefixes,
        soap_header: headers.sections,
        argument: arguments
            .found
            .iter()
            .chain(&headers.fields)
            .map(|field| field_section(field, true, &mut Vec::new()))
            .collect(),
        result: results
            .found
            .iter()
            .map(|field| field_section(field, false, &mut Vec::new()))
            .collect(),
        ..sections::VersionSection::default()
    };
    let mut notes = prompt_markup::notes(&version);
    notes.extend(arguments.notes);
    notes.extend(results.notes);
    notes.extend(headers.notes);
    let section = sections::ToolSection {
        name: tool_name.clone(),
        downstream: options.downstream.clone(),
        version: vec![version],
    };
    Ok(Written {
        name: tool_name,
        section,
        notes,
        credentials: headers.credentials,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolschema_config::Config;
    use toolschema_runtime::call::Registry;

    use crate::{ImportOptions, import_wsdl};
    use toolschema_gateway::soap;

    /// A stock service in rpc/literal: parts of simple and complex types,
    /// an operation without parts, an answer of one complex part.
    const RPC: &str = r#"<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:stock" targetNamespace="urn:stock">
  <types><xs:schema targetNamespace="urn:stock">
    <xs:complexType name="Quote"><xs:sequence>
      <xs:element name="price" type="xs:decimal"/><xs:element name="currency" type="xs:string"/>
    </xs:sequence></xs:complexType>
    <xs:complexType name="Window"><xs:sequence>
      <xs:element name="from" type="xs:date"/><xs:element name="days" type="xs:int" minOccurs="0"/>
    </xs:sequence></xs:complexType>
  </xs:schema></types>
  <message name="GetQuoteIn"><part name="symbol" type="xs:string"/><part name="window" type="t:Window"/></message>
  <message name="GetQuoteOut"><part name="quote" type="t:Quote"/></message>
  <message name="PingIn"/>
  <message name="PingOut"><part name="ok" type="xs:boolean"/></message>
  <portType name="Stock">
    <operation name="GetQuote"><input message="t:GetQuoteIn"/><output message="t:GetQuoteOut"/></operation>
    <operation name="Ping"><input message="t:PingIn"/><output message="t:PingOut"/></operation>
  </portType>
  <binding name="StockSoap" type="t:Stock">
    <soap:binding style="rpc" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="GetQuote"><soap:operation soapAction="urn:stock#GetQuote"/>
      <input><soap:body use="literal" namespace="urn:stock:rpc"/></input>
      <output><soap:body use="literal" namespace="urn:stock:rpc"/></output></operation>
    <operation name="Ping"><soap:operation soapAction=""/>
      <input><soap:body use="literal" namespace="urn:stock:rpc"/></input>
      <output><soap:body use="literal" namespace="urn:stock:rpc"/></output></operation>
  </binding>
  <service name="StockService"><port name="P" binding="t:StockSoap">
    <soap:address location="https://stock.example/soap"/></port></service>
</definitions>"#;

    fn import(wsdl: &str) -> crate::Imported {
        let options = ImportOptions {
            downstream: "stock".into(),
            ..ImportOptions::default()
        };
        import_wsdl(wsdl.as_bytes(), &options).expect("imports")
    }

    #[test]
    fn rpc_literal_operations_call_the_operation_with_its_parts() {
        let imported = import(RPC);
        assert_eq!(
            imported.tools,
            ["get-quote", "ping"],
            "{:?}",
            imported.skipped
        );
        let text = format!(
            "[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\n\n{}",
            imported
                .toml
                .replace("status = \"draft\"", "status = \"published\"")
        );
        let config = Config::from_toml(&text, "stock.toml", &Registry::new())
            .unwrap_or_else(|e| panic!("{e}"));
        let versions = |name: &str| {
            config
                .configured_tools()
                .iter()
                .find(|tool| tool.name() == name)
                .map(|tool| tool.versions()[0].operation())
                .expect("the tool")
        };
        let quote = versions("get-quote");
        let arguments: Vec<&str> = quote
            .arguments()
            .iter()
            .map(|a| a.exposed.as_str())
            .collect();
        assert_eq!(arguments, ["symbol", "window.from", "window.days"]);
        // The wrapper is the operation in the body's namespace; the parts
        // and what they hold are unqualified.
        let envelope = soap::request_envelope(
            quote,
            &json!({"symbol": "ACME", "window": {"from": "2026-12-01", "days": 5}}),
        )
        .expect("an envelope");
        let envelope = String::from_utf8(envelope).expect("UTF-8");
        assert!(
            envelope.contains(
                r#"<m:GetQuote xmlns:m="urn:stock:rpc"><symbol>ACME</symbol><window><from>2026-12-01</from><days>5</days></window></m:GetQuote>"#
            ),
            "{envelope}"
        );
        // The answer's one complex part is read through.
        let answer = br#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>
            <ns:GetQuoteResponse xmlns:ns="urn:stock:rpc"><quote><price>12.5</price><currency>EUR</currency></quote></ns:GetQuoteResponse>
            </soap:Body></soap:Envelope>"#;
        let result = soap::result_from_envelope(quote, answer).expect("read");
        assert_eq!(result, json!({"price": 12.5, "currency": "EUR"}));

        let ping = versions("ping");
        assert!(ping.arguments().is_empty());
        let envelope =
            String::from_utf8(soap::request_envelope(ping, &json!({})).expect("an envelope"))
                .expect("UTF-8");
        assert!(
            envelope.contains(r#"<m:Ping xmlns:m="urn:stock:rpc"></m:Ping>"#),
            "{envelope}"
        );
        let answer = br#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>
            <ns:PingResponse xmlns:ns="urn:stock:rpc"><ok>true</ok></ns:PingResponse></soap:Body></soap:Envelope>"#;
        assert_eq!(
            soap::result_from_envelope(ping, answer).expect("read"),
            json!({"ok": true})
        );
    }

    #[test]
    fn rpc_parts_the_gateway_cannot_write_are_skipped_with_their_reason() {
        // A part naming an element, and a part whose type's schema
        // qualifies its elements.
        let wsdl = RPC
            .replace(
                r#"<part name="symbol" type="xs:string"/>"#,
                r#"<part name="symbol" element="t:Symbol"/>"#,
            )
            .replace(
                r#"<xs:schema targetNamespace="urn:stock">"#,
                r#"<xs:schema targetNamespace="urn:stock" elementFormDefault="qualified">"#,
            );
        let imported = import(&wsdl);
        let reasons: Vec<(&str, &str)> = imported
            .skipped
            .iter()
            .map(|s| (s.operation.as_str(), s.reason.as_str()))
            .collect();
        assert_eq!(imported.tools, ["ping"], "{reasons:?}");
        assert_eq!(reasons.len(), 1);
        assert!(
            reasons[0].1.contains("part `symbol`") && reasons[0].1.contains("names an element"),
            "{reasons:?}"
        );
        let qualified = RPC.replace(
            r#"<xs:schema targetNamespace="urn:stock">"#,
            r#"<xs:schema targetNamespace="urn:stock" elementFormDefault="qualified">"#,
        );
        let imported = import(&qualified);
        assert_eq!(imported.tools, ["ping"]);
        assert!(
            imported.skipped[0]
                .reason
                .contains("`Window`, whose elements are qualified"),
            "{:?}",
            imported.skipped
        );
        // A type that refers to a top-level element (always qualified).
        let referring = RPC.replace(
            r#"<xs:element name="days" type="xs:int" minOccurs="0"/>"#,
            r#"<xs:element ref="tns:days" minOccurs="0"/>"#,
        );
        assert_eq!(import(&referring).tools, ["ping"]);
        // A part in a SOAP header; and a body that names its parts.
        let header = RPC.replace(
            r#"<input><soap:body use="literal" namespace="urn:stock:rpc"/></input>
      <output><soap:body use="literal" namespace="urn:stock:rpc"/></output></operation>
    <operation name="Ping">"#,
            r#"<input><soap:body use="literal" namespace="urn:stock:rpc" parts="symbol"/><soap:header message="t:GetQuoteIn" part="window" use="literal"/></input>
      <output><soap:body use="literal" namespace="urn:stock:rpc"/></output></operation>
    <operation name="Ping">"#,
        );
        assert_ne!(header, RPC);
        let imported = import(&header);
        assert_eq!(imported.tools, ["ping"]);
        assert!(
            imported.skipped[0]
                .reason
                .contains("header part `window` is of a type rather than an element"),
            "{:?}",
            imported.skipped
        );
        let named = header.replace(
            r#"<soap:header message="t:GetQuoteIn" part="window" use="literal"/>"#,
            "",
        );
        let imported = import(&named);
        assert_eq!(
            imported.tools,
            ["get-quote", "ping"],
            "{:?}",
            imported.skipped
        );
        assert!(imported.toml.contains("name = \"symbol\"") && !imported.toml.contains("window"));
    }

    /// A document/literal service whose request carries header parts: a
    /// customer id (an argument), a developer token (a credential by its
    /// name), a session (a credential the operator names) and a tracking
    /// block of another namespace (an argument, with its fields).
    const HEADERS: &str = r#"<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:ads" xmlns:k="urn:ads:tracking" xmlns:a="urn:arrays" targetNamespace="urn:ads">
  <types>
    <xs:schema targetNamespace="urn:ads" elementFormDefault="qualified">
      <xs:element name="CustomerId" nillable="true" type="xs:long"/>
      <xs:element name="DeveloperToken" type="xs:string"/>
      <xs:element name="Session" type="xs:string"/>
      <xs:element name="GetThings"><xs:complexType><xs:sequence>
        <xs:element name="CustomerId" type="xs:long"/><xs:element name="Query" type="xs:string"/>
        <xs:element name="Ids" type="a:ArrayOflong" minOccurs="0"/>
      </xs:sequence></xs:complexType></xs:element>
    </xs:schema>
    <xs:schema targetNamespace="urn:arrays" elementFormDefault="qualified">
      <xs:complexType name="ArrayOflong"><xs:sequence>
        <xs:element name="long" type="xs:long" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence></xs:complexType>
    </xs:schema>
    <xs:schema targetNamespace="urn:ads:tracking" elementFormDefault="qualified">
      <xs:element name="Tracking"><xs:complexType><xs:sequence>
        <xs:element name="Label" type="xs:string"/>
      </xs:sequence></xs:complexType></xs:element>
    </xs:schema>
  </types>
  <message name="In"><part name="parameters" element="t:GetThings"/></message>
  <message name="InHeaders">
    <part name="CustomerId" element="t:CustomerId"/><part name="DeveloperToken" element="t:DeveloperToken"/>
    <part name="Session" element="t:Session"/><part name="Tracking" element="k:Tracking"/>
  </message>
  <portType name="Ads"><operation name="GetThings"><input message="t:In"/></operation></portType>
  <binding name="AdsSoap" type="t:Ads">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="GetThings"><soap:operation soapAction="GetThings"/>
      <input>
        <soap:header message="t:InHeaders" part="CustomerId" use="literal"/>
        <soap:header message="t:InHeaders" part="DeveloperToken" use="literal"/>
        <soap:header message="t:InHeaders" part="Session" use="literal"/>
        <soap:header message="t:InHeaders" part="Tracking" use="literal"/>
        <soap:body use="literal"/>
      </input></operation>
  </binding>
  <service name="AdsService"><port name="P" binding="t:AdsSoap">
    <soap:address location="https://ads.example/soap"/></port></service>
</definitions>"#;

    #[test]
    fn header_parts_become_arguments_and_credentials_come_from_secrets() {
        let options = ImportOptions {
            downstream: "ads".into(),
            soap_header_secrets: vec![("Session".into(), "ADS_SESSION".into())],
            ..ImportOptions::default()
        };
        let imported = import_wsdl(HEADERS.as_bytes(), &options).expect("imports");
        assert_eq!(imported.tools, ["get-things"], "{:?}", imported.skipped);
        let notes: Vec<&str> = imported.dropped.iter().map(|d| d.reason.as_str()).collect();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].contains("`DeveloperToken` is taken for a credential")
                && notes[0].contains("`ADS_DEVELOPER_TOKEN`"),
            "{notes:?}"
        );
        assert!(
            notes[1].contains("`Session` is a credential (`--soap-header-secret`)")
                && notes[1].contains("`ADS_SESSION`"),
            "{notes:?}"
        );
        let text = format!(
            "[[tenant]]\nid = \"t\"\n\n[[client]]\nid = \"c\"\ntenant = \"t\"\n\n{}",
            imported
                .toml
                .replace("status = \"draft\"", "status = \"published\"")
        );
        let config = Config::from_toml(&text, "ads.toml", &Registry::new())
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        let version = &config.configured_tools()[0].versions()[0];
        // The body's `CustomerId` keeps its name; the header's reads alike
        // and takes `_header`. No credential is an argument.
        let arguments: Vec<(&str, &str)> = version
            .operation()
            .arguments()
            .iter()
            .map(|a| (a.exposed.as_str(), a.source.as_str()))
            .collect();
        assert_eq!(
            arguments,
            [
                ("customer_id", "CustomerId"),
                ("query", "Query"),
                // An element of another namespace is named with a prefix.
                ("ids.long[]", "Ids.n1:long[]"),
                ("customer_id_header", "CustomerId"),
                ("tracking.label", "Tracking.Label"),
            ]
        );
        let envelope = soap::request_envelope(
            version.operation(),
            &json!({"customer_id": 1, "query": "q", "ids": {"long": [4, 5]}, "customer_id_header": 7, "tracking": {"label": "x"}}),
        )
        .expect("an envelope");
        let envelope = String::from_utf8(envelope).expect("UTF-8");
        assert!(
            envelope.contains(r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:n1="urn:arrays">"#),
            "{envelope}"
        );
        assert!(
            envelope.contains(concat!(
                r#"<soap:Header><h:DeveloperToken xmlns:h="urn:ads"></h:DeveloperToken><h:Session xmlns:h="urn:ads"></h:Session>"#,
                r#"<h:Tracking xmlns:h="urn:ads:tracking"><h:Label>x</h:Label></h:Tracking>"#,
                r#"<h:CustomerId xmlns:h="urn:ads">7</h:CustomerId></soap:Header>"#,
                r#"<soap:Body><m:GetThings xmlns:m="urn:ads"><m:CustomerId>1</m:CustomerId><m:Query>q</m:Query>"#,
                r#"<m:Ids><n1:long>4</n1:long><n1:long>5</n1:long></m:Ids></m:GetThings></soap:Body>"#
            )),
            "{envelope}"
        );
    }
}

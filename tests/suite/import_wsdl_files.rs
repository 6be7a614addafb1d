//! A WSDL document whose types live in schema files beside it, with
//! bindings and no service (ONVIF's shape): the files are read, a URL is
//! never fetched, and the address comes from the operator.

use toolschema_import::{ImportOptions, import_wsdl_file};

const WSDL: &str = r###"<?xml version="1.0"?>
<definitions xmlns="http://schemas.xmlsoap.org/wsdl/"
    xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/"
    xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:tds="http://example.com/device" targetNamespace="http://example.com/device">
  <types>
    <xs:schema targetNamespace="http://example.com/device" elementFormDefault="qualified">
      <xs:import namespace="http://example.com/common" schemaLocation="./common.xsd"/>
      <xs:import namespace="http://www.w3.org/2005/08/addressing" schemaLocation="http://www.w3.org/2006/03/addressing/ws-addr.xsd"/>
      <xs:element name="SetName">
        <xs:complexType><xs:sequence>
          <xs:element name="Name" type="tt:Name" xmlns:tt="http://example.com/common"/>
          <xs:any namespace="##any" processContents="lax" minOccurs="0" maxOccurs="unbounded"/>
        </xs:sequence></xs:complexType>
      </xs:element>
      <xs:element name="SetNameResponse"><xs:complexType><xs:sequence/></xs:complexType></xs:element>
    </xs:schema>
  </types>
  <message name="SetNameRequest"><part name="parameters" element="tds:SetName"/></message>
  <message name="SetNameResponse"><part name="parameters" element="tds:SetNameResponse"/></message>
  <portType name="Device">
    <operation name="SetName">
      <input message="tds:SetNameRequest"/><output message="tds:SetNameResponse"/>
    </operation>
  </portType>
  <binding name="DeviceBinding" type="tds:Device">
    <soap12:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <operation name="SetName">
      <soap12:operation soapAction="http://example.com/device/SetName"/>
      <input><soap12:body use="literal"/></input><output><soap12:body use="literal"/></output>
    </operation>
  </binding>
</definitions>"###;

const COMMON: &str = r#"<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="http://example.com/common">
  <xs:include schemaLocation="names/name.xsd"/>
</xs:schema>"#;

const NAME: &str = r#"<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="http://example.com/common">
  <xs:simpleType name="Name">
    <xs:restriction base="xs:string"><xs:maxLength value="64"/></xs:restriction>
  </xs:simpleType>
</xs:schema>"#;

#[test]
fn schema_files_beside_the_document_are_read_and_a_url_is_not() {
    let dir = std::env::temp_dir().join(format!("toolschema-wsdl-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("names")).expect("dir");
    std::fs::write(dir.join("device.wsdl"), WSDL).expect("write");
    std::fs::write(dir.join("common.xsd"), COMMON).expect("write");
    std::fs::write(dir.join("names/name.xsd"), NAME).expect("write");
    let mut options = ImportOptions {
        downstream: "device".to_owned(),
        ..ImportOptions::default()
    };
    // Bindings without a service: the address is the operator's to say.
    let refused = import_wsdl_file(&dir.join("device.wsdl"), &options).expect_err("no address");
    assert!(refused.to_string().contains("--base-url"), "{refused}");
    options.base_url = Some("http://camera.local/onvif/device_service".to_owned());
    let imported = import_wsdl_file(&dir.join("device.wsdl"), &options).expect("imports");
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(imported.tools, ["set-name"], "{:?}", imported.skipped);
    // The type from the included file, with its bound; SOAP 1.2; the
    // optional `xs:any` left out.
    let text = &imported.toml;
    assert!(
        text.contains("name = \"name\"\nsource = \"Name\"\ntype = \"string\"\nrequired = true\nmax_length = 64"),
        "{text}"
    );
    assert!(text.contains("soap_version = \"1.2\""), "{text}");
    assert!(
        imported.dropped.iter().any(|d| d
            .reason
            .contains("http://www.w3.org/2006/03/addressing/ws-addr.xsd` is not read")),
        "{:?}",
        imported.dropped
    );
}

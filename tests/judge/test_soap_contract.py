"""The SOAP judge's own check (tests/judge/soap_contract.py): a WSDL whose
schemas use one another's namespaces without a location (as Microsoft
Advertising's do), and one that takes its types from a WSDL it imports;
envelopes that follow them are valid, each kind of mistake the gateway
could make is refused with its reason.

    python -m pytest -q tests/judge/test_soap_contract.py
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from soap_contract import Contract, inline_schemas  # noqa: E402

WSDL = """<?xml version="1.0"?>
<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:tns="urn:ads" xmlns:a="urn:arrays" targetNamespace="urn:ads">
  <wsdl:types>
    <xs:schema targetNamespace="urn:ads" elementFormDefault="qualified">
      <xs:import namespace="urn:arrays"/>
      <xs:element name="DeveloperToken" type="xs:string"/>
      <xs:element name="GetThings"><xs:complexType><xs:sequence>
        <xs:element name="Query" type="xs:string"/>
        <xs:element name="Ids" type="a:ArrayOflong" minOccurs="0"/>
      </xs:sequence></xs:complexType></xs:element>
    </xs:schema>
    <xs:schema targetNamespace="urn:arrays" elementFormDefault="qualified">
      <xs:complexType name="ArrayOflong"><xs:sequence>
        <xs:element name="long" type="xs:long" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence></xs:complexType>
    </xs:schema>
  </wsdl:types>
</wsdl:definitions>
"""

IMPORTING = """<?xml version="1.0"?>
<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" targetNamespace="urn:other">
  <wsdl:import namespace="urn:ads" location="ads.wsdl"/>
</wsdl:definitions>
"""


def envelope(body, header=""):
    head = f"<s:Header>{header}</s:Header>" if header else ""
    return (
        '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:n1="urn:arrays">'
        f"{head}<s:Body>{body}</s:Body></s:Envelope>"
    ).encode()


VALID = '<m:GetThings xmlns:m="urn:ads"><m:Query>q</m:Query><m:Ids><n1:long>4</n1:long></m:Ids></m:GetThings>'


def contract(tmp_path):
    (tmp_path / "ads.wsdl").write_text(WSDL)
    return Contract(str(tmp_path / "ads.wsdl"))


def test_schemas_are_read_with_the_definitions_namespace_declarations():
    schemas = inline_schemas(WSDL)
    assert len(schemas) == 2
    # `a:ArrayOflong` reads: the root's `xmlns:a` is declared on the schema.
    assert 'xmlns:a="urn:arrays"' in schemas[0]
    assert 'xmlns:wsdl=' in schemas[0]


def test_an_envelope_that_follows_the_schemas_is_valid(tmp_path):
    judged = contract(tmp_path)
    header = '<h:DeveloperToken xmlns:h="urn:ads">t</h:DeveloperToken>'
    assert judged.judge(envelope(VALID, header)) == []


def test_each_mistake_is_refused_with_its_reason(tmp_path):
    judged = contract(tmp_path)
    # An element of another namespace written in the request's.
    wrong_namespace = VALID.replace("<n1:long>4</n1:long>", "<m:long>4</m:long>")
    assert "Unexpected child" in judged.judge(envelope(wrong_namespace))[0]
    # A required element left out; a value of the wrong type.
    assert judged.judge(envelope('<m:GetThings xmlns:m="urn:ads"/>'))[0].startswith("Body: ")
    assert "long" in judged.judge(envelope(VALID.replace(">4<", ">four<")))[0]
    # A header block no schema declares, and one of the wrong type.
    unknown = '<h:Token xmlns:h="urn:ads">t</h:Token>'
    assert judged.judge(envelope(VALID, unknown)) == ["Header: {urn:ads}Token is no element the schemas declare"]
    bad = '<h:DeveloperToken xmlns:h="urn:ads"><x/></h:DeveloperToken>'
    assert judged.judge(envelope(VALID, bad))[0].startswith("Header: ")
    # Not an envelope at all.
    assert judged.judge(b"<html/>") == ["the root is html, not a SOAP Envelope"]
    assert judged.judge(b"<s:Envelope")[0].startswith("not well-formed XML")


def test_the_types_of_an_imported_wsdl_are_read(tmp_path):
    (tmp_path / "ads.wsdl").write_text(WSDL)
    (tmp_path / "other.wsdl").write_text(IMPORTING)
    judged = Contract(str(tmp_path / "other.wsdl"))
    assert judged.judge(envelope(VALID)) == []

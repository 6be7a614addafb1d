"""A WSDL's own contract for the envelopes sent to it: the XSD schemas of its
`types` (with the schema files they import), read by `xmlschema`, and each
envelope's blocks judged by them.

The schemas inline in `wsdl:types` are read as they are written: their text
taken from the document, with the namespace declarations of the enclosing
`definitions` added (a schema's QName values such as `type="tns:Quote"` use
them), and loaded together with those of the WSDL documents it imports
(`wsdl:import`), so that one schema may use another's namespace without a
`schemaLocation` (Microsoft Advertising's do). Files
they import are read from beside the document; a remote location is read
from there too when a file of its last segment's name is there (ONVIF's
`ws-discovery.xsd` imports addressing by URL), and never fetched.
"""

import os
import re
import xml.etree.ElementTree as ET

import xmlschema

SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP12 = "http://www.w3.org/2003/05/soap-envelope"
WSDL = "http://schemas.xmlsoap.org/wsdl/"
DECLARATION = re.compile(r'xmlns(?::([\w.-]+))?\s*=\s*"([^"]*)"')


def inline_schemas(text):
    """The text of each `xsd:schema` in the document, each with the namespace
    declarations of the document's root it does not make itself."""
    root = re.search(r"<([\w.-]+:)?definitions\b([^>]*)>", text)
    declared = dict(DECLARATION.findall(root.group(2))) if root else {}
    schemas = []
    for start in re.finditer(r"<([\w.-]+:)?schema\b([^>]*?)(/?)>", text):
        prefix = start.group(1) or ""
        if start.group(3):
            end = start.end()
        else:
            close = "</%sschema>" % prefix
            end = text.index(close, start.end()) + len(close)
        own = dict(DECLARATION.findall(start.group(2)))
        added = "".join(f' xmlns:{p}="{uri}"' for p, uri in declared.items() if p and p not in own)
        if "" not in own and declared.get("", WSDL) != WSDL:
            added += f' xmlns="{declared[""]}"'
        head = "<%sschema%s%s%s>" % (prefix, start.group(2), added, "/" if start.group(3) else "")
        schemas.append(head + text[start.end():end])
    return schemas


def documents_schemas(path, seen=None):
    """The inline schemas of the document and of the WSDL documents it
    imports (`wsdl:import location`, read from beside it), each once."""
    seen = set() if seen is None else seen
    if path in seen or not os.path.isfile(path):
        return []
    seen.add(path)
    with open(path, encoding="utf-8") as file:
        text = file.read()
    schemas = inline_schemas(text)
    for location in re.findall(r"<(?:[\w.-]+:)?import\b[^>]*\blocation\s*=\s*\"([^\"]+)\"", text):
        if not location.startswith(("http://", "https://")):
            schemas += documents_schemas(os.path.normpath(os.path.join(os.path.dirname(path), location)), seen)
    return schemas


class Contract:
    """The XSD schemas of one WSDL document, loaded once."""

    def __init__(self, path):
        path = os.path.abspath(path)
        folder = os.path.dirname(path)
        sources = documents_schemas(path)
        if not sources:
            raise ValueError("the document has no inline schema")

        def local(url):
            name = url.rstrip("/").rsplit("/", 1)[-1]
            if url.startswith(("http://", "https://")) and os.path.isfile(os.path.join(folder, name)):
                return "file://" + os.path.join(folder, name)
            return url

        self.schema = xmlschema.XMLSchema(
            sources if len(sources) > 1 else sources[0],
            base_url=folder, allow="sandbox", defuse="always", uri_mapper=local,
        )

    def judge(self, envelope):
        """The problems of one envelope (empty when its body's element and
        every header block are valid by the schemas): each a sentence."""
        try:
            root = ET.fromstring(envelope)
        except ET.ParseError as error:
            return [f"not well-formed XML: {error}"]
        namespace = root.tag[1:].split("}")[0] if root.tag.startswith("{") else ""
        if namespace not in (SOAP11, SOAP12) or root.tag.split("}")[-1] != "Envelope":
            return [f"the root is {root.tag}, not a SOAP Envelope"]
        body = root.find(f"{{{namespace}}}Body")
        if body is None or len(body) != 1:
            return ["the Body does not hold exactly one element"]
        blocks = [("Body", body[0])]
        header = root.find(f"{{{namespace}}}Header")
        if header is not None:
            blocks += [("Header", block) for block in header]
        problems = []
        for place, element in blocks:
            if self.schema.elements.get(element.tag) is None and self.schema.maps.elements.get(element.tag) is None:
                problems.append(f"{place}: {element.tag} is no element the schemas declare")
                continue
            for error in self.schema.iter_errors(ET.ElementTree(element)):
                problems.append(f"{place}: {short(error)}")
                break
        return problems


def short(error):
    """One line of an `xmlschema` validation error: its reason and where."""
    reason = (error.reason or str(error)).splitlines()[0]
    return f"{reason} (at {error.path})" if getattr(error, "path", None) else reason

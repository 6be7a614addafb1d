"""What the judge reads in an API description itself: which operation a
request's path and method belong to (to tell a request the document has no
route for from one Prism cannot route), and the answers an operation
documents; and, as a second opinion beside Prism's, whether a JSON body
(a request's, or an answer's) holds to the document's schema for it: Prism
skips, silently, every schema its validator cannot compile (a `nullable`
without a `type`, as Twilio writes them), and judges such a body valid."""

import copy
import json
import re
import urllib.parse

import jsonschema
import referencing
import referencing.jsonschema

from aws import SigV4, Selectors, region_and_service, sigv4_scheme, split_key

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


class Document:
    def __init__(self, path):
        with open(path, encoding="utf-8") as file:
            self.value = json.load(file)
        self.paths = self.value.get("paths") or {}
        # AWS's keys with a selector (`/#X-Amz-Target=…`, `/{Bucket}#uploads`):
        # routed by the recorder, which says which key a request is (aws.py).
        self.selectors = Selectors(self.value)
        # AWS's Signature Version 4, checked on every request when the
        # document's security scheme is AWS's.
        self.sigv4 = SigV4(*region_and_service(self.value)) if sigv4_scheme(self.value) else None
        self.templates = []
        for key in self.paths:
            if split_key(key)[1] is not None:
                continue
            bare = key
            pattern = "".join(
                "[^/]+" if part.startswith("{") else re.escape(part) for part in re.split(r"(\{[^}]*\})", bare)
            )
            self.templates.append((re.compile(f"^{pattern}/?$"), key))

    def operations(self):
        return sum(1 for item in self.paths.values() if isinstance(item, dict) for method in item if method in METHODS)

    def route(self, method, target, key=None):
        """(method, path key) of the operation a request belongs to, or None;
        `key`: the selector key the recorder found the request to be."""
        method = method.lower()
        if key is not None:
            return (method, key) if isinstance(self.paths.get(key), dict) and method in self.paths[key] else None
        path = urllib.parse.unquote(urllib.parse.urlsplit(target).path)
        for pattern, key in self.templates:
            if pattern.match(path) and isinstance(self.paths[key], dict) and method in self.paths[key]:
                return method, key
        return None

    def unroutable(self, route):
        """Why Prism may not route the operation's path key."""
        key = route[1]
        if "#" in key:
            return "a path key with a `#` fragment"
        if "?" in key:
            return "a path key with a `?` query"
        return "this path"

    def responses(self, route):
        operation = self.paths[route[1]].get(route[0]) or {}
        return list((operation.get("responses") or {}).keys())

    def has_success(self, route):
        return any(str(code).startswith("2") for code in self.responses(route))

    def security(self, route):
        """The operation's security requirements, each as its schemes joined
        by `+` with where each puts its credential."""
        operation = self.paths[route[1]].get(route[0]) or {}
        required = operation.get("security", self.value.get("security")) or []
        schemes = (self.value.get("components") or {}).get("securitySchemes") or self.value.get("securityDefinitions") or {}
        out = []
        for requirement in required:
            parts = []
            for name in requirement:
                scheme = schemes.get(name) or {}
                where = scheme.get("scheme") or scheme.get("type", "?")
                if scheme.get("type") == "apiKey":
                    where = f"{scheme.get('in')} {scheme.get('name')}"
                parts.append(f"{name} ({where})")
            out.append(" + ".join(parts) or "none")
        return out

    def for_prism(self):
        """The document as Prism is to read it: selector keys rewritten as
        plain paths (aws.py), or None when it has none."""
        return self.selectors.rewritten() if self.selectors else None

    def forward(self, method, target, headers):
        """The recorder's question: (selector key, target for Prism) of a
        request, or None (sent as it came)."""
        return self.selectors.forward(method, target, headers) if self.selectors else None

    def verify(self, method, target, headers, body, key=None):
        """The check of a request's SigV4 signature (aws.SigV4.check), or
        None when the document is not signed so (or the operation asks for
        no credentials and none was sent)."""
        if self.sigv4 is None:
            return None
        route = self.route(method, target, key)
        if route is not None and not self.signed(route) and not any(k.lower() == "authorization" for k, _ in headers):
            return None
        return self.sigv4.check(method, target, headers, body)

    def signed(self, route):
        """Whether the operation's security requirements all include AWS's SigV4 scheme."""
        operation = self.paths[route[1]].get(route[0]) or {}
        required = operation.get("security", self.value.get("security")) or []
        schemes = (self.value.get("components") or {}).get("securitySchemes") or self.value.get("securityDefinitions") or {}
        aws = {n for n, s in schemes.items() if isinstance(s, dict) and s.get("x-amazon-apigateway-authtype") == "awsSigv4"}
        return bool(required) and all(set(r) & aws for r in required)

    def answer_breaks(self, method, target, status, headers, body, key=None):
        """Whether a 2xx JSON answer to a request breaks the document's
        schema for it (the recorder's question)."""
        if not 200 <= status < 300 or not any(k.lower() == "content-type" and "json" in v for k, v in headers):
            return False
        route = self.route(method, target, key)
        return bool(route and self.body_violations(route, "response", status, body.decode("utf-8", "replace")))

    def body_violations(self, route, direction, status=None, body=""):
        """How a JSON body breaks the document's schema for the operation's
        request (`direction` "request") or its answer of `status`
        ("response"), as `path: message`; None when there is no JSON schema
        to hold it to, or the body is not JSON."""
        pointer = self.body_schema(route, direction, status)
        if pointer is None:
            return None
        try:
            value = json.loads(body)
        except ValueError:
            return None
        validator_class, registry = self.checker(direction)
        validator = validator_class({"$ref": "urn:judge:document#" + pointer}, registry=registry,
                                    format_checker=validator_class.FORMAT_CHECKER)
        try:
            return [f"/{'/'.join(str(p) for p in e.absolute_path)}: {e.message}"[:300] for e in validator.iter_errors(value)]
        except (referencing.exceptions.Unresolvable, re.error, RecursionError, jsonschema.exceptions.SchemaError):
            return None

    def body_schema(self, route, direction, status):
        """The JSON pointer of the JSON schema of a request's or an answer's
        body, its `$ref`s to request bodies and responses followed."""
        base = ["paths", route[1], route[0]]
        operation = self.resolve(base)
        if not isinstance(operation, dict):
            return None
        if direction == "request":
            if "requestBody" in operation:
                at = self.follow(base + ["requestBody"])
            else:  # Swagger 2.0: a `body` parameter
                for index, parameter in enumerate(operation.get("parameters") or []):
                    at = self.follow(base + ["parameters", index])
                    if (self.resolve(at) or {}).get("in") == "body":
                        return self.pointer(at + ["schema"])
                return None
        else:
            responses = operation.get("responses") or {}
            code = next((c for c in (str(status), f"{str(status)[0]}XX", "default") if c in responses), None)
            if code is None:
                return None
            at = self.follow(base + ["responses", code])
            if "schema" in (self.resolve(at) or {}):  # Swagger 2.0
                return self.pointer(at + ["schema"])
        content = (self.resolve(at) or {}).get("content") or {}
        media = next((m for m in content if m.split(";")[0].strip() == "application/json"), None)
        media = media or next((m for m in content if "json" in m), None)
        if media is None or "schema" not in content[media]:
            return None
        return self.pointer(at + ["content", media, "schema"])

    def resolve(self, steps):
        node = self.value
        for step in steps:
            try:
                node = node[step]
            except (KeyError, IndexError, TypeError):
                return None
        return node

    def follow(self, steps):
        """`steps`, or where the `$ref` found there points."""
        for _ in range(8):
            node = self.resolve(steps)
            if not (isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/")):
                return steps
            steps = [unescape(part) for part in node["$ref"][2:].split("/")]
        return steps

    @staticmethod
    def pointer(steps):
        return "/" + "/".join(str(s).replace("~", "~0").replace("/", "~1") for s in steps)

    def checker(self, direction):
        """The validator class and a registry holding the document, read as
        JSON Schema for one direction: `nullable` as a null type, and the
        properties that direction never carries (`readOnly` in a request,
        `writeOnly` in an answer) not required."""
        cache = self.__dict__.setdefault("_checkers", {})
        if direction not in cache:
            version = str(self.value.get("openapi", "2.0"))
            if version.startswith("3.1"):
                validator_class, spec = jsonschema.Draft202012Validator, referencing.jsonschema.DRAFT202012
                contents = self.value
            else:
                validator_class, spec = jsonschema.Draft4Validator, referencing.jsonschema.DRAFT4
                contents = as_json_schema(copy.deepcopy(self.value), "readOnly" if direction == "request" else "writeOnly")
            resource = referencing.Resource(contents=contents, specification=spec)
            cache[direction] = (validator_class, referencing.Registry().with_resource("urn:judge:document", resource))
        return cache[direction]


def unescape(part):
    return urllib.parse.unquote(part).replace("~1", "/").replace("~0", "~")


def as_json_schema(node, never):
    """OpenAPI 3.0 and Swagger 2.0 schemas read as JSON Schema (draft 4), in
    place: `nullable`/`x-nullable` admit null; a property marked `never`
    (`readOnly` for requests, `writeOnly` for answers) is not required."""
    if isinstance(node, list):
        return [as_json_schema(item, never) for item in node]
    if not isinstance(node, dict):
        return node
    for key, value in list(node.items()):
        node[key] = as_json_schema(value, never)
    properties = node.get("properties")
    if isinstance(node.get("required"), list) and isinstance(properties, dict):
        node["required"] = [n for n in node["required"] if not (isinstance(properties.get(n), dict) and properties[n].get(never))]
    if node.get("nullable") is True or node.get("x-nullable") is True:
        inner = {k: v for k, v in node.items() if k not in ("nullable", "x-nullable")}
        if isinstance(inner.get("type"), str) and "$ref" not in inner and "allOf" not in inner:
            inner["type"] = [inner["type"], "null"]
            if isinstance(inner.get("enum"), list):
                inner["enum"] = inner["enum"] + [None]
            return inner
        return {"anyOf": [inner, {"type": "null"}]}
    return node

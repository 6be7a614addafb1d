"""What the judge needs to judge AWS's API descriptions: a copy of the
document Prism can route, and a check of every request's Signature Version
4 by botocore's own implementation (PyPI `botocore`, pinned in .ci/run).

Routing. AWS's path keys carry a selector after `#` (or `?`) that tells
apart operations sharing one path and method:
`/#X-Amz-Target=AWSPriceListService.DescribeServices` (the JSON protocol:
every operation a POST to `/`, told apart by the `X-Amz-Target` header),
`/#Action=AssumeRole` (the query protocol: by the `Action` query key),
`/tags/{ResourceArn}#tagKeys` and `/{Bucket}#uploads` (REST: by query keys
that must be present). Prism routes on the path alone and cannot tell
these apart. `Selectors` writes, for Prism only (the import reads the
original), each such key as a plain path of its own (its base path, then
`/__judge/` and the selector, encoded), and tells the recorder, for each
request the gateway sends, which of those keys it belongs to: same method,
the base path's template matching the request's path, every item of the
selector satisfied (a header item — `X-Amz-*`, or a name the operation
declares in a header — by the header's value; any other by the query key's
presence, and its value when the item gives one); the most specific match
wins. Such a request is passed to Prism under the rewritten path, with its
query, headers and body as they came; a request that matches no selector
goes to Prism as it came (and Prism finds no route for it: the request is
in no operation of the document).

Signatures. For a document whose security scheme is AWS's
(`x-amazon-apigateway-authtype: awsSigv4`), `SigV4` checks each request's
`Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…,
Signature=…` by rebuilding, from exactly what was received, the request
botocore would sign (method; the URL as the gateway addressed it: http, the
Host header it sent, the path as received; the query's pairs, decoded, for
botocore to encode and sort as AWS does; only the headers SignedHeaders
names; the body's bytes), and having botocore's `SigV4Auth` compute the
canonical request, the string to sign and the signature for the judge's
dummy credentials and the region and service the document says.
"""

import datetime
import hashlib
import re
import urllib.parse

# The value judge.py's configuration() gives every credential variable:
# the access key id, the secret key and the session token alike.
SECRET = "judge-secret-8f3a"
MARK = "__judge"
# Characters a rewritten path segment keeps as they are; any other is
# written `~XX` (its UTF-8 bytes in hex).
PLAIN = re.compile(r"[A-Za-z0-9\-_.]")
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
# How far X-Amz-Date may be from the clock, as AWS allows.
SKEW = datetime.timedelta(minutes=15)


def split_key(key):
    """A path key's base path and its selector (the text after the first `#`
    or `?`), or None when it has none."""
    match = re.search(r"[#?]", key)
    if match is None:
        return key, None
    return key[: match.start()] or "/", key[match.end():]


def encode(selector):
    return "".join(c if PLAIN.match(c) else "".join(f"~{b:02X}" for b in c.encode()) for c in selector)


def template(base):
    """The base path's template as a regular expression on a request's raw
    path: `{name}` one segment, `{name+}` (AWS's greedy label) one or more."""
    parts = re.split(r"(\{[^}]*\})", base)
    pattern = "".join(
        (".+" if part.endswith("+}") else "[^/]+") if part.startswith("{") else re.escape(part) for part in parts
    )
    return re.compile(f"^{pattern}/?$")


def header_of(headers, name):
    """The values of a header (case-insensitive name) among (name, value) pairs."""
    return [v for k, v in headers if k.lower() == name.lower()]


class Route:
    """One path key with a selector: where it goes in Prism's copy and what
    a request must carry to be its."""

    def __init__(self, key, item, index):
        self.key = key
        base, selector = split_key(key)
        self.base = base
        self.selector = selector
        self.pattern = template(base)
        self.literal = len(re.sub(r"\{[^}]*\}", "", base))
        self.methods = {m for m in item if m in METHODS} if isinstance(item, dict) else set()
        headers = set()
        for method in self.methods:
            for parameter in (item.get(method) or {}).get("parameters") or []:
                if isinstance(parameter, dict) and parameter.get("in") == "header":
                    headers.add(str(parameter.get("name", "")).lower())
        self.items = []  # (where, name, value or None)
        for part in selector.split("&"):
            if not part or part.endswith("!"):  # `deprecated!`: a marker telling duplicate keys apart, never sent
                continue
            name, eq, value = part.partition("=")
            where = "header" if name.lower().startswith("x-amz-") or name.lower() in headers else "query"
            self.items.append((where, name, value if eq else None))
        self.rewritten = base.rstrip("/") + f"/{MARK}/" + encode(selector)
        self.index = index

    def matches(self, method, path, query, headers):
        if method.lower() not in self.methods or not self.pattern.match(path):
            return False
        for where, name, value in self.items:
            if where == "header":
                found = header_of(headers, name)
            else:
                found = [v for k, v in query if k == name]
            if not found or (value is not None and value not in found):
                return False
        return True

    def rank(self):
        return (len(self.items), self.literal, -self.index)


class Selectors:
    """The selector routes of a document (none for most documents)."""

    def __init__(self, document):
        self.document = document
        paths = document.get("paths") or {}
        self.routes = [Route(key, item, i) for i, (key, item) in enumerate(paths.items()) if split_key(key)[1] is not None]

    def __bool__(self):
        return bool(self.routes)

    def match(self, method, target, headers):
        """The selector route a request belongs to (`headers` as (name,
        value) pairs), or None."""
        parts = urllib.parse.urlsplit(target)
        query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        found = [r for r in self.routes if r.matches(method, parts.path, query, headers)]
        return max(found, key=Route.rank) if found else None

    def forward(self, method, target, headers):
        """(the path key, the target to send Prism) for a request that
        matches a selector route, else None."""
        route = self.match(method, target, headers)
        if route is None:
            return None
        parts = urllib.parse.urlsplit(target)
        path = parts.path.rstrip("/") + f"/{MARK}/" + encode(route.selector)
        return route.key, path + (f"?{parts.query}" if parts.query else "")

    def rewritten(self):
        """A copy of the document in which each selector key is its rewritten
        plain path (for Prism only)."""
        by_key = {r.key: r.rewritten for r in self.routes}
        copy = dict(self.document)
        copy["paths"] = {by_key.get(key, key): item for key, item in (self.document.get("paths") or {}).items()}
        return copy


# -- Signature Version 4 -----------------------------------------------------

AUTHORIZATION = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<credential>[^,\s]+),\s*SignedHeaders=(?P<signed>[^,\s]+),\s*Signature=(?P<signature>[0-9a-f]{64})$"
)


def sigv4_scheme(document):
    """Whether the document's security schemes include AWS's SigV4."""
    components = document.get("components") or {}
    schemes = components.get("securitySchemes") or document.get("securityDefinitions") or {}
    return any(isinstance(s, dict) and s.get("x-amazon-apigateway-authtype") == "awsSigv4" for s in schemes.values())


def region_and_service(document):
    """The region (the `region` server variable's default, else us-east-1)
    and the signing name (`info.x-aws-signingName`, else
    `info.x-serviceName`) the document gives."""
    region = None
    for server in document.get("servers") or []:
        variable = ((server or {}).get("variables") or {}).get("region") or {}
        if variable.get("default"):
            region = variable["default"]
            break
    info = document.get("info") or {}
    return region or "us-east-1", info.get("x-aws-signingName") or info.get("x-serviceName")


class SigV4:
    """Checks requests' signatures with botocore for one region and service."""

    def __init__(self, region, service, access_key=SECRET, secret_key=SECRET, token=SECRET):
        from botocore.auth import SigV4Auth
        from botocore.credentials import Credentials

        self.region, self.service = region, service
        self.access_key, self.secret_key, self.token = access_key, secret_key, token
        self.SigV4Auth, self.Credentials = SigV4Auth, Credentials

    def check(self, method, target, headers, body, now=None):
        """`headers` as (name, value) pairs as received, `body` bytes.
        Returns {"verified": True, ...} or {"verified": False, "reason": a
        grouping key, "detail": the evidence}."""
        from botocore.awsrequest import AWSRequest

        authorization = header_of(headers, "authorization")
        if not authorization:
            return refused("unsigned: no Authorization header", "the request carries no Authorization header")
        match = AUTHORIZATION.match(authorization[-1].strip())
        if match is None:
            scheme = authorization[-1].strip().split(" ", 1)[0]
            shown = scheme[:24] if scheme.startswith("AWS4") else scheme[:4] + "…"
            return refused("unsigned: Authorization is not `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`",
                           f"Authorization starts `{shown}` ({len(authorization[-1])} characters)")
        credential, signed, got = match.group("credential"), match.group("signed"), match.group("signature")
        dates = header_of(headers, "x-amz-date")
        if not dates or not re.fullmatch(r"\d{8}T\d{6}Z", dates[-1]):
            return refused("X-Amz-Date missing or not YYYYMMDDTHHMMSSZ", f"X-Amz-Date: {dates}")
        stamp = dates[-1]
        when = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
        now = now or datetime.datetime.now(datetime.timezone.utc)
        if abs(now - when) > SKEW:
            return refused("X-Amz-Date more than 15 minutes from the clock", f"X-Amz-Date {stamp}, now {now:%Y%m%dT%H%M%SZ}")
        scope = credential.split("/")
        wanted = [self.access_key, stamp[:8], self.region, self.service, "aws4_request"]
        if scope != wanted:
            return refused("credential scope is not access key/date/region/service/aws4_request of the document",
                           f"Credential={credential}, wanted {'/'.join(wanted)}")
        names = signed.split(";")
        if names != sorted(set(names)) or any(n != n.lower() for n in names):
            return refused("SignedHeaders not lower-case, sorted and distinct", f"SignedHeaders={signed}")
        sent = {k.lower() for k, _ in headers}
        must = {"host", "x-amz-date"} | {n for n in sent if n.startswith("x-amz-") or n == "content-type"}
        unsigned = sorted(must - set(names))
        if unsigned:
            return refused("SignedHeaders leaves out a header it must sign", f"SignedHeaders={signed}, not signed: {', '.join(unsigned)}")
        absent = sorted(set(names) - sent)
        if absent:
            return refused("SignedHeaders names a header not sent", f"SignedHeaders={signed}, not sent: {', '.join(absent)}")
        tokens = header_of(headers, "x-amz-security-token")
        if tokens and tokens[-1] != self.token:
            return refused("x-amz-security-token is not the session token", f"x-amz-security-token of {len(tokens[-1])} characters")
        digest = hashlib.sha256(body).hexdigest()
        claimed = header_of(headers, "x-amz-content-sha256")
        if claimed and claimed[-1] != digest:
            return refused("x-amz-content-sha256 is not the body's SHA-256",
                           f"x-amz-content-sha256: {claimed[-1]}, the body's ({len(body)} bytes): {digest}")

        request, signer = self.rebuild(method, target, headers, names, body, stamp, bool(tokens))
        # botocore leaves some headers out of any signature (User-Agent,
        # Expect, …): a SignedHeaders naming one cannot be what it signs.
        own = signer.signed_headers(signer.headers_to_sign(request))
        if own != signed:
            return refused("SignedHeaders names a header SigV4 never signs", f"SignedHeaders={signed}; botocore signs {own}")
        canonical = signer.canonical_request(request)
        to_sign = signer.string_to_sign(request, canonical)
        expected = signer.signature(to_sign, request)
        if expected != got:
            return refused("signature does not match",
                           f"signature: expected {expected}, got {got}; canonical request: {canonical!r}; string to sign: {to_sign!r}")
        return {"verified": True, "canonical_request": canonical, "signature": got}

    def rebuild(self, method, target, headers, names, body, stamp, token):
        """The AWSRequest botocore signs for what was received, and its signer."""
        from botocore.awsrequest import AWSRequest

        parts = urllib.parse.urlsplit(target)
        host = header_of(headers, "host")[-1]
        url = f"http://{host}{parts.path}" + (f"?{parts.query}" if parts.query else "")
        request = AWSRequest(method=method.upper(), url=url, data=body)
        for name, value in headers:
            if name.lower() in names:
                request.headers[name.lower()] = value
        # The query's pairs decoded (`%XX`; a `+` is a plus), for botocore to
        # encode by RFC 3986 and sort, as AWS does on its side: a gateway
        # signing its own encoding of the query, not the canonical one, is
        # found out.
        request.params = [(urllib.parse.unquote(k), urllib.parse.unquote(v))
                          for k, _, v in (pair.partition("=") for pair in parts.query.split("&") if pair)]
        request.context["timestamp"] = stamp
        credentials = self.Credentials(self.access_key, self.secret_key, self.token if token else None)
        return request, self.SigV4Auth(credentials, self.service, self.region)


def refused(reason, detail):
    return {"verified": False, "reason": reason, "detail": detail}

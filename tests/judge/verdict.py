"""The verdict on one call: who is at fault, and why, from what was sent
and what Prism answered (the recorder's exchanges), and what the client got.

Outcomes, each with its owner:

- `answered` — Prism found the request valid, answered 2xx, and the client
  got a result that is not an error.
- `refused by the contract` (ours) — Prism found the request invalid: its
  violation list (422, 400, a documented error answer with `sl-violations`),
  401 for credentials the security requirements want, 415 for a content
  type, 406 for an `Accept` the operation cannot answer, or no route for a
  request whose path or method is in no operation of the document.
- `refused by the signature check` (ours) — the document's security
  scheme is AWS's Signature Version 4 and the request is unsigned (no
  `Authorization`, or one that is not `AWS4-HMAC-SHA256 …`) or its
  signature is wrong: botocore, given exactly what was received, computes
  another (the expected and received signatures and the canonical request
  are the evidence), or its scope, date or signed headers are not what
  they must be (tests/judge/aws.py). Judged before Prism's answer.
- `refused by the gateway` (ours) — nothing was sent: the gateway refused
  its own request (arguments valid by the schema it advertises).
- `answer refused` (ours) — Prism judged the request valid and answered
  2xx with an answer that holds to the document, but the gateway (or the
  client, by the tool's output schema) refused it.
- `mock` (the mock's, with Prism's own words as evidence) — Prism cannot
  route a path of the document (AWS's `#`/`?` keys); it reads a form list
  of one item, sent once as OpenAPI's `form` style sends it, as no list;
  its own generated answer breaks the document (500 VIOLATIONS, even after
  the recorder asked again for an answer generated from the schema; or an
  answer Prism did not check, found breaking the document by the judge's
  own check); it has no answer to give, it failed or crashed; or the
  document gives the operation no 2xx answer, so Prism answered with what
  it documents.
- `unexplained` (counted as ours) — anything else.

Prism skips every schema its validator cannot compile, so a JSON body
Prism passes is also held to the document's schema by the judge itself
(tests/judge/document.py): a violation found there is ours too.

A request is *judged* when Prism validated it; *judged valid* when it found
no error in it. The denominators leave out only the calls whose failure is
shown to be the mock's.
"""

import json
import re
import urllib.parse

from recorder import violations

ANSWERED = "answered"
REFUSED = "refused by the contract"
UNSIGNED = "refused by the signature check"
GATEWAY = "refused by the gateway"
ANSWER = "answer refused"
MOCK = "mock"
UNEXPLAINED = "unexplained"
OWNERS = {ANSWERED: "", REFUSED: "ours", UNSIGNED: "ours", GATEWAY: "ours", ANSWER: "ours", UNEXPLAINED: "ours", MOCK: "mock"}

ROUTING = ("NO_PATH_MATCHED_ERROR", "NO_METHOD_MATCHED_ERROR", "NO_SERVER_MATCHED_ERROR", "NO_RESOURCE_PROVIDED_ERROR")
# Prism's failures after it found the request valid.
MOCK_AFTER_VALIDATION = ("VIOLATIONS", "NO_RESPONSE_RESPONSE_DEFINED", "SCHEMA_TOO_COMPLEX", "NO_COMPLEX_OBJECT_TEXT")


def verdict(exchanges, result, error, document):
    """`exchanges`: what the gateway sent during the call; `result`: the
    tool result (`is_error`, `text`), or None with `error` the JSON-RPC or
    client error text. Returns a dict: outcome, owner, judged (True, False:
    judged invalid, None: not judged), reason (a grouping key), message."""
    failed = result is None or result["is_error"]
    said = error if result is None else result["text"]
    if not exchanges:
        if not failed:
            return done(UNEXPLAINED, None, "answered without a request", said)
        return done(GATEWAY, False, "gateway: " + normalize(said), said)
    exchange = exchanges[-1]
    signature = exchange.signature or {}
    if signature.get("verified") is False:
        prism = f"; Prism answered {exchange.status}" if exchange.status is not None else ""
        return done(UNSIGNED, False, "signature: " + signature["reason"], signature["detail"] + prism)
    if exchange.error is not None:
        return done(MOCK, None, "mock: Prism could not be reached or broke the connection", exchange.error)
    problem = problem_of(exchange)
    kind = problem.get("type", "").rsplit("#", 1)[-1] if problem else ""
    errors = [v for v in request_violations(exchange) if v.get("severity") == "Error"]
    if kind == "UNPROCESSABLE_ENTITY" and not errors:
        errors = [dict(v, location=["request"] + list(v.get("location", []))) for v in problem.get("validation", [])]
    prisms = [v for v in errors if form_list_of_one(exchange, v)]
    errors = [v for v in errors if v not in prisms]
    if prisms and not errors:
        return done(MOCK, True, "mock: Prism reads a form list of one item (`name=value` once) as one value",
                    f"{exchange.method} {exchange.target} body {exchange.body[:200]!r}; Prism: " + "; ".join(violation_text(v) for v in prisms))
    codes = {str(v.get("code")) for v in errors}
    if errors and not codes & {"401", "415"}:
        text = "; ".join(violation_text(v) for v in errors)
        return done(REFUSED, False, "contract: " + violation_key(errors[0]), text)
    listed = "; ".join(violation_text(v) for v in errors)
    if kind == "UNAUTHORIZED" or "401" in codes:
        route = document.route(exchange.method, exchange.target, exchange.route)
        wanted = document.security(route) if route else []
        together = any(" + " in requirement for requirement in wanted)
        reason = "a requirement of several schemes together" if together else "credentials missing or malformed"
        sent = ", ".join(sorted(exchange.headers)) + (f"; query {exchange.target.split('?', 1)[1]}" if "?" in exchange.target else "")
        return done(REFUSED, False, f"contract: 401 {reason}",
                    f"Prism: {problem.get('title') or listed}. The document wants one of: {' | '.join(wanted) or '?'}; sent headers: {sent}")
    if kind == "INVALID_CONTENT_TYPE" or "415" in codes:
        detail = next((v.get("message", "") for v in errors if str(v.get("code")) == "415"), None) or problem.get("detail", "")
        return done(REFUSED, False, "contract: 415 " + normalize(detail),
                    f"{exchange.method} {exchange.target} Content-Type: {header(exchange, 'content-type')}; body {exchange.body[:80]!r}; Prism: {listed or detail}")
    if kind == "NOT_ACCEPTABLE":
        return done(REFUSED, False, "contract: 406 the operation cannot answer the Accept sent",
                    f"Accept: {header(exchange, 'accept')}; {problem.get('detail', '')}")
    if kind in ROUTING:
        route = document.route(exchange.method, exchange.target, exchange.route)
        if route is None:
            return done(REFUSED, False, f"contract: {kind} (the request's path or method is in no operation)",
                        f"{exchange.method} {exchange.target}: {problem.get('title')}")
        why = document.unroutable(route)
        forwarded = f" (forwarded as {exchange.forwarded})" if exchange.forwarded else ""
        return done(MOCK, None, f"mock: Prism cannot route {why}",
                    f"{exchange.method} {exchange.target}{forwarded} is the document's `{route[1]}`; Prism: {problem.get('title')}")
    if kind in MOCK_AFTER_VALIDATION:
        detail = problem.get("detail", "")
        listed = problem.get("validation") or []
        if listed:
            detail = "; ".join(violation_text(dict(v, location=["response"] + list(v.get("location", [])[1:]))) for v in listed[:3])
        return done(MOCK, True, f"mock: {kind} ({problem.get('title')})", detail)
    status = exchange.status
    if status is not None and status >= 500:
        return done(MOCK, None, f"mock: Prism answered {status}", exchange.response_body[:300])
    if status is not None and not 200 <= status < 300:
        route = document.route(exchange.method, exchange.target, exchange.route)
        if route is not None and not document.has_success(route):
            return done(MOCK, True, f"mock: the document gives the operation no 2xx answer (Prism answered {status})",
                        f"{exchange.method} {route[1]} responses: {', '.join(document.responses(route))}")
        return done(UNEXPLAINED, True, f"unexplained: Prism answered {status} without a violation", exchange.response_body[:300])
    route = document.route(exchange.method, exchange.target, exchange.route)
    if route is not None and "json" in header(exchange, "content-type"):
        second = document.body_violations(route, "request", body=exchange.body)
        if second:
            return done(REFUSED, False, "contract (the judge's check of the body; Prism skipped its schema): " + normalize(second[0]),
                        "; ".join(second[:5]))
    again = " (Prism's example broke the document; this answer was generated from the schema)" if exchange.first_answer else ""
    if failed:
        broken = None
        if route is not None and "json" in exchange.response_headers.get("content-type", ""):
            broken = document.body_violations(route, "response", exchange.status, exchange.response_body)
        if broken:
            return done(MOCK, True, "mock: its answer breaks the document (Prism's validator skipped the schema)",
                        "; ".join(broken[:5]) + f" (the gateway: {said[:300]})")
        return done(ANSWER, True, "answer: " + normalize(said), said + again)
    return done(ANSWERED, True, "", again.strip(" ()"))


def done(outcome, judged, reason, message):
    return {"outcome": outcome, "owner": OWNERS[outcome], "judged": judged, "reason": reason, "message": (message or "")[:2000]}


def problem_of(exchange):
    if "problem+json" not in exchange.response_headers.get("content-type", ""):
        return {}
    try:
        value = json.loads(exchange.response_body)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def request_violations(exchange):
    raw = exchange.response_headers.get("sl-violations")
    return [v for v in violations(raw) if v["location"][:1] == ["request"]]


def form_list_of_one(exchange, violation):
    """Whether Prism calls a form field not a list when it is a list of one
    item, sent as OpenAPI's `form` style (explode) sends it: once."""
    if "x-www-form-urlencoded" not in header(exchange, "content-type"):
        return False
    location = [str(p) for p in violation.get("location", [])]
    if location[:2] != ["request", "body"] or len(location) != 3 or not violation.get("message", "").endswith("must be array"):
        return False
    fields = [pair.split("=", 1)[0] for pair in exchange.body.split("&")]
    return fields.count(urllib.parse.quote_plus(location[2])) == 1


def header(exchange, name):
    return next((v for k, v in exchange.headers.items() if k.lower() == name), "")


def violation_text(violation):
    return f"{'.'.join(str(p) for p in violation.get('location', []))} {violation.get('message', '')}"


def violation_key(violation):
    location = [str(p) for p in violation.get("location", [])]
    where = location[1] if len(location) > 1 else "request"
    message = re.sub(r"^(Request \w+ (?:property|parameter)) \S+", r"\1 …", violation.get("message", ""))
    message = re.sub(r"allowed values: .*", "allowed values: …", message)
    return f"{where} {violation.get('code', '?')}: {normalize(message)}"


def normalize(text):
    """A message with its particulars (names, values, numbers) taken out, so
    that failures of one kind group together."""
    text = (text or "").strip().splitlines()[0] if text else ""
    text = re.sub(r"`[^`]*`", "`…`", text)
    text = re.sub(r"'[^']*'", "'…'", text)
    text = re.sub(r'"[^"]*"', '"…"', text)
    text = re.sub(r"\b\d+(\.\d+)?\b", "N", text)
    text = re.sub(r"/[\w\-/~]+", "/…", text)
    return text[:160]

"""Arguments for a tool, generated from the input schema it advertises.

Deterministic: the same schema always gives the same arguments. Two sets a
tool: `required` (only the required properties, at every level) and `all`
(every property, to a depth). Values honour what the schema says: `const`
and `enum` (the first value), `format`, `pattern` (a shortest match, then
longer ones), `minLength`/`maxLength`, numeric bounds and `multipleOf`,
`minItems`/`maxItems`/`uniqueItems`, `minProperties`, nested objects, and
the first alternative of `oneOf`/`anyOf` that the schema accepts.

`generate` returns the arguments and the schema's complaints about them
(empty when they are valid): a non-empty list is the generator's failure,
counted apart from the gateway's.
"""

import math
import re

import jsonschema

try:  # the parser behind `re`, to draw a string from a pattern
    import re._parser as sre_parse
    import re._constants as sre_constants
except ImportError:  # Python before 3.11
    import sre_constants
    import sre_parse

# Past this depth, `all` takes only the required properties.
ALL_DEPTH = 4
# Past this depth, nothing optional is written and arrays are as short as
# allowed.
MAX_DEPTH = 12

FORMATS = {
    "date-time": "2024-05-06T07:08:09Z",
    "date": "2024-05-06",
    "time": "07:08:09Z",
    "duration": "P1D",
    "email": "judge@example.com",
    "idn-email": "judge@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uri": "https://example.com/judge",
    "iri": "https://example.com/judge",
    "uri-reference": "https://example.com/judge",
    "iri-reference": "https://example.com/judge",
    "uri-template": "https://example.com/{judge}",
    "url": "https://example.com/judge",
    "uuid": "4b3b9f1e-8c1d-4e8a-9b7f-2a6c1d0e5f3a",
    "json-pointer": "/judge",
    "relative-json-pointer": "0/judge",
    "regex": "^judge$",
    "byte": "anVkZ2U=",
    "binary": "judge",
    "password": "judge-password",
}


def generate(schema, mode):
    """The arguments of one set (`required` or `all`) and the input schema's
    violations by them (empty when valid)."""
    value = Generator(mode).value(schema, 0)
    if value is None or not isinstance(value, dict):
        value = {}
    return value, violations(schema, value)


def violations(schema, value):
    """Each way `value` breaks `schema` (2020-12, formats asserted where
    jsonschema has a checker), as `path: message`."""
    try:
        validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        return [f"/{'/'.join(str(p) for p in error.absolute_path)}: {error.message}" for error in validator.iter_errors(value)]
    except (re.error, jsonschema.exceptions.SchemaError) as error:
        return [f"the schema cannot be read here: {error}"]


class Generator:
    def __init__(self, mode):
        assert mode in ("required", "all")
        self.mode = mode

    def value(self, schema, depth):
        if schema is True or schema is None or schema == {}:
            return "judge"
        if schema is False:
            return None
        if "const" in schema:
            return schema["const"]
        if "enum" in schema and schema["enum"]:
            return schema["enum"][0]
        for key in ("oneOf", "anyOf"):
            if schema.get(key):
                return self.alternative(schema, key, depth)
        if schema.get("allOf"):
            return self.value(merged(schema), depth)
        kind = type_of(schema)
        if kind == "object":
            return self.object(schema, depth)
        if kind == "array":
            return self.array(schema, depth)
        if kind == "string":
            return string(schema)
        if kind == "integer":
            return number(schema, integer=True)
        if kind == "number":
            return number(schema, integer=False)
        if kind == "boolean":
            return True
        if kind == "null":
            return None
        return "judge"

    def alternative(self, schema, key, depth):
        """The first alternative whose value the whole schema accepts."""
        rest = {k: v for k, v in schema.items() if k != key}
        first = None
        for option in schema[key]:
            candidate = self.value(merged({"allOf": [rest, option]}) if rest else option, depth)
            if first is None:
                first = candidate
            if not violations(schema, candidate):
                return candidate
        return first

    def object(self, schema, depth):
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        everything = self.mode == "all" and depth < ALL_DEPTH
        out = {}
        for name, sub in properties.items():
            if name in required or everything:
                out[name] = self.value(sub, depth + 1)
        extra = schema.get("additionalProperties", True)
        for name in required:
            if name not in out:
                out[name] = self.value(extra if isinstance(extra, dict) else {}, depth + 1)
        want = schema.get("minProperties", 0)
        index = 1
        while len(out) < want:
            name = f"key{index}"
            if name not in out:
                out[name] = self.value(extra if isinstance(extra, dict) else {}, depth + 1)
            index += 1
        return out

    def array(self, schema, depth):
        count = schema.get("minItems", 0)
        if self.mode == "all" and depth < MAX_DEPTH:
            count = max(count, 1)
        if "maxItems" in schema:
            count = min(count, schema["maxItems"])
        prefix = schema.get("prefixItems", [])
        items = schema.get("items", {})
        out = []
        for index in range(count):
            sub = prefix[index] if index < len(prefix) else items
            value = self.value(sub if isinstance(sub, dict) else {}, depth + 1)
            if schema.get("uniqueItems") and value in out:
                value = distinct(sub, out, value)
            out.append(value)
        return out


def type_of(schema):
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind:
        return kind
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
        return "number"
    return "string"


def merged(schema):
    """`allOf` folded into one schema: properties and required joined, the
    rest taken from the first that says it."""
    out = {k: v for k, v in schema.items() if k != "allOf"}
    for part in schema.get("allOf", []):
        if not isinstance(part, dict):
            continue
        if "allOf" in part:
            part = merged(part)
        for key, value in part.items():
            if key == "properties":
                out["properties"] = {**out.get("properties", {}), **value}
            elif key == "required":
                out["required"] = list(dict.fromkeys(out.get("required", []) + value))
            else:
                out.setdefault(key, value)
    return out


def distinct(schema, taken, value):
    """Another value of `schema`, not in `taken`, for `uniqueItems`."""
    for option in schema.get("enum", []) if isinstance(schema, dict) else []:
        if option not in taken:
            return option
    if isinstance(value, str):
        for option in (value + str(len(taken)), str(len(taken)) + value):
            if not isinstance(schema, dict) or not violations(schema, option):
                return option
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value + len(taken)
    return value


def string(schema):
    low = schema.get("minLength", 0)
    high = schema.get("maxLength")
    pattern = schema.get("pattern")
    candidates = []
    if pattern is not None:
        for stretch in (0, 1, 2, 4, 8, max(low, 1)):
            drawn = from_pattern(pattern, stretch)
            if drawn is not None:
                candidates.append(drawn)
    fmt = schema.get("format")
    if fmt in FORMATS:
        candidates.append(FORMATS[fmt])
    base = "judge"
    if low > len(base):
        base = base + "e" * (low - len(base))
    if high is not None:
        base = base[:high]
    candidates.append(base)
    for candidate in candidates:
        if not violations(schema, candidate):
            return candidate
    return candidates[0]


def number(schema, integer):
    low = schema.get("minimum")
    high = schema.get("maximum")
    step = schema.get("multipleOf")
    exclusive_low = schema.get("exclusiveMinimum")
    exclusive_high = schema.get("exclusiveMaximum")
    # OpenAPI 3.0's boolean forms, should any reach us.
    if exclusive_low is True:
        exclusive_low, low = low, None
    if exclusive_high is True:
        exclusive_high, high = high, None
    if isinstance(exclusive_low, bool):
        exclusive_low = None
    if isinstance(exclusive_high, bool):
        exclusive_high = None
    nudge = 1 if integer else 0.5
    floor = None
    if low is not None:
        floor = low
    if exclusive_low is not None:
        floor = max(floor, exclusive_low + nudge) if floor is not None else exclusive_low + nudge
    ceiling = None
    if high is not None:
        ceiling = high
    if exclusive_high is not None:
        ceiling = min(ceiling, exclusive_high - nudge) if ceiling is not None else exclusive_high - nudge
    if floor is not None:
        value = floor
    elif ceiling is not None:
        value = min(ceiling, 1)
    else:
        value = 1
    if step:
        value = math.ceil(value / step) * step
    if integer:
        value = int(math.ceil(value))
    return value


def from_pattern(pattern, stretch):
    """A string `pattern` matches (searched, as JSON Schema reads it), each
    repetition at its least or `stretch` times; None if Python cannot read
    the pattern."""
    try:
        parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return None
    groups = {}
    try:
        return "".join(walk(parsed, stretch, groups))
    except (ValueError, RecursionError):
        return None


CATEGORIES = {
    sre_constants.CATEGORY_DIGIT: "0",
    sre_constants.CATEGORY_NOT_DIGIT: "a",
    sre_constants.CATEGORY_SPACE: " ",
    sre_constants.CATEGORY_NOT_SPACE: "a",
    sre_constants.CATEGORY_WORD: "a",
    sre_constants.CATEGORY_NOT_WORD: "-",
}


def walk(items, stretch, groups):
    for op, arg in items:
        if op is sre_constants.LITERAL:
            yield chr(arg)
        elif op is sre_constants.NOT_LITERAL:
            yield "a" if chr(arg) != "a" else "b"
        elif op is sre_constants.ANY:
            yield "a"
        elif op is sre_constants.IN:
            yield one_of(arg)
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, getattr(sre_constants, "POSSESSIVE_REPEAT", None)):
            low, high, sub = arg
            times = max(low, min(stretch, high)) if high is not sre_constants.MAXREPEAT else max(low, stretch)
            for _ in range(times):
                yield from walk(sub, stretch, groups)
        elif op is sre_constants.SUBPATTERN:
            group, _, _, sub = arg
            text = "".join(walk(sub, stretch, groups))
            if group is not None:
                groups[group] = text
            yield text
        elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
            yield from walk(arg, stretch, groups)
        elif op is sre_constants.BRANCH:
            yield from walk(arg[1][0], stretch, groups)
        elif op is sre_constants.GROUPREF:
            yield groups.get(arg, "")
        elif op in (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            continue
        else:
            raise ValueError(f"pattern element {op}")


def one_of(items):
    """A character a class (`[...]`) accepts."""
    if items and items[0][0] is sre_constants.NEGATE:
        refused = set()
        for op, arg in items[1:]:
            if op is sre_constants.LITERAL:
                refused.add(chr(arg))
            elif op is sre_constants.RANGE:
                refused.update(chr(c) for c in range(arg[0], min(arg[1], 0x7F) + 1))
        for candidate in "aZ0-_ .":
            if candidate not in refused:
                return candidate
        raise ValueError("negated class")
    op, arg = items[0]
    if op is sre_constants.LITERAL:
        return chr(arg)
    if op is sre_constants.RANGE:
        return chr(arg[0])
    if op is sre_constants.CATEGORY:
        return CATEGORIES.get(arg, "a")
    raise ValueError(f"class element {op}")

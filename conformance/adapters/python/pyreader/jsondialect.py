"""Parser for the Python-flavoured JSON of bcolz metadata files (spec/v1.md section 9.1).

RFC 8259 JSON plus the bare tokens NaN, Infinity and -Infinity; integers are kept exact
(Python int); repeated keys, a byte-order mark, invalid UTF-8 and trailing text are errors.
Iterative, so deep nesting cannot exhaust the interpreter stack.
"""

from .errors import FormatError

_WS = " \t\n\r"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_DIGITS = "0123456789"


class _Obj:
    __slots__ = ("items", "keys", "pending_key")

    def __init__(self):
        self.items = {}
        self.keys = set()
        self.pending_key = None


def parse(raw, path):
    """Parse bytes `raw` (the content of metadata file `path`) into Python values.

    Objects become dicts (insertion order kept), arrays lists, integers int, other numbers float.
    """
    def fail(msg):
        raise FormatError("BAD_JSON", "%s: %s" % (path, msg), path=path)

    if raw.startswith(b"\xef\xbb\xbf"):
        fail("byte-order mark")
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        fail("invalid UTF-8 (%s)" % exc.reason)

    n = len(text)
    pos = 0

    def skip_ws(p):
        while p < n and text[p] in _WS:
            p += 1
        return p

    def parse_string(p):
        # text[p] == '"'
        p += 1
        out = []
        start = p
        while True:
            if p >= n:
                fail("unterminated string")
            ch = text[p]
            if ch == '"':
                out.append(text[start:p])
                return "".join(out), p + 1
            if ch == "\\":
                out.append(text[start:p])
                if p + 1 >= n:
                    fail("unterminated escape")
                esc = text[p + 1]
                if esc == "u":
                    hexs = text[p + 2:p + 6]
                    if len(hexs) != 4 or any(c not in "0123456789abcdefABCDEF" for c in hexs):
                        fail("bad \\u escape at offset %d" % p)
                    code = int(hexs, 16)
                    p += 6
                    if 0xD800 <= code < 0xDC00 and text[p:p + 2] == "\\u":
                        hexs2 = text[p + 2:p + 6]
                        if len(hexs2) == 4 and all(c in "0123456789abcdefABCDEF" for c in hexs2):
                            low = int(hexs2, 16)
                            if 0xDC00 <= low < 0xE000:
                                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                                p += 6
                    out.append(chr(code))
                elif esc in _ESCAPES:
                    out.append(_ESCAPES[esc])
                    p += 2
                else:
                    fail("bad escape \\%s" % esc)
                start = p
                continue
            if ord(ch) < 0x20:
                fail("control character in string")
            p += 1

    def parse_number(p):
        start = p
        if p < n and text[p] == "-":
            p += 1
            if text.startswith("Infinity", p):
                return float("-inf"), p + 8
        if p >= n or text[p] not in _DIGITS:
            fail("bad number at offset %d" % start)
        if text[p] == "0":
            p += 1
        else:
            while p < n and text[p] in _DIGITS:
                p += 1
        is_int = True
        if p < n and text[p] == ".":
            is_int = False
            p += 1
            if p >= n or text[p] not in _DIGITS:
                fail("bad fraction at offset %d" % start)
            while p < n and text[p] in _DIGITS:
                p += 1
        if p < n and text[p] in "eE":
            is_int = False
            p += 1
            if p < n and text[p] in "+-":
                p += 1
            if p >= n or text[p] not in _DIGITS:
                fail("bad exponent at offset %d" % start)
            while p < n and text[p] in _DIGITS:
                p += 1
        tok = text[start:p]
        if is_int:
            return int(tok), p
        return float(tok), p

    def parse_scalar(p):
        """Parse a non-container value at p; returns (value, new_pos)."""
        ch = text[p]
        if ch == '"':
            return parse_string(p)
        if ch == "-" or ch in _DIGITS:
            return parse_number(p)
        for word, value in (("true", True), ("false", False), ("null", None),
                            ("NaN", float("nan")), ("Infinity", float("inf"))):
            if text.startswith(word, p):
                return value, p + len(word)
        fail("unexpected character %r at offset %d" % (ch, p))

    # Iterative parse with an explicit stack of open containers.
    stack = []
    result = None
    have_result = False
    pos = skip_ws(pos)
    expect_value = True
    while True:
        if expect_value:
            if pos >= n:
                fail("unexpected end of input")
            ch = text[pos]
            if ch == "{":
                obj = _Obj()
                pos = skip_ws(pos + 1)
                if pos < n and text[pos] == "}":
                    value = {}
                    pos += 1
                else:
                    stack.append(obj)
                    # read a key
                    if pos >= n or text[pos] != '"':
                        fail("expected object key at offset %d" % pos)
                    key, pos = parse_string(pos)
                    pos = skip_ws(pos)
                    if pos >= n or text[pos] != ":":
                        fail("expected ':' at offset %d" % pos)
                    pos = skip_ws(pos + 1)
                    obj.pending_key = key
                    continue
            elif ch == "[":
                pos = skip_ws(pos + 1)
                if pos < n and text[pos] == "]":
                    value = []
                    pos += 1
                else:
                    stack.append([])
                    continue
            else:
                value, pos = parse_scalar(pos)
            # a complete value: attach it
            expect_value = False
        # attach `value` to the innermost container or finish
        while True:
            if not stack:
                result = value
                have_result = True
                break
            top = stack[-1]
            if isinstance(top, _Obj):
                key = top.pending_key
                if key in top.keys:
                    fail("repeated key %r" % key)
                top.keys.add(key)
                top.items[key] = value
                pos = skip_ws(pos)
                if pos < n and text[pos] == ",":
                    pos = skip_ws(pos + 1)
                    if pos >= n or text[pos] != '"':
                        fail("expected object key at offset %d" % pos)
                    key, pos = parse_string(pos)
                    pos = skip_ws(pos)
                    if pos >= n or text[pos] != ":":
                        fail("expected ':' at offset %d" % pos)
                    pos = skip_ws(pos + 1)
                    top.pending_key = key
                    expect_value = True
                    break
                if pos < n and text[pos] == "}":
                    pos += 1
                    stack.pop()
                    value = top.items
                    continue
                fail("expected ',' or '}' at offset %d" % pos)
            else:
                top.append(value)
                pos = skip_ws(pos)
                if pos < n and text[pos] == ",":
                    pos = skip_ws(pos + 1)
                    expect_value = True
                    break
                if pos < n and text[pos] == "]":
                    pos += 1
                    stack.pop()
                    value = top
                    continue
                fail("expected ',' or ']' at offset %d" % pos)
        if have_result:
            break
    pos = skip_ws(pos)
    if pos != n:
        fail("trailing data at offset %d" % pos)
    return result

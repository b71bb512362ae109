"""Exact TOML strings for sheet values, written and read once.

vp_sheet_set() takes a value's text: a bare value of a string key is quoted by the library,
but a value that starts with a quote is read as a TOML string literal. So text from Python
(a model name such as '"quoted" 7B' or "it's") is always handed over as a TOML basic string
made here, which the library decodes exactly once. vp_sheet_get() returns a string value as a
TOML basic string; unquote() decodes it (and literal strings) back to the original str.
"""

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}
_UNESCAPES = {'"': '"', "\\": "\\", "b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r"}


def quote(text):
    """`text` as a TOML basic string: '"' and '\\' escaped, control characters (and DEL) as
    escapes, everything else as UTF-8. A NUL or a lone surrogate (no UTF-8 form) is a
    ValueError: the library could not store it."""
    if not isinstance(text, str):
        raise TypeError("a sheet string must be str, not %s" % type(text).__name__)
    out = ['"']
    for i, ch in enumerate(text):
        o = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif o == 0:
            raise ValueError("a sheet string cannot hold a NUL character (at index %d)" % i)
        elif o < 0x20 or o == 0x7F:
            out.append("\\u%04X" % o)
        elif 0xD800 <= o <= 0xDFFF:
            raise ValueError("a sheet string must be valid Unicode: lone surrogate U+%04X at "
                             "index %d" % (o, i))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def unquote(text):
    """The str a TOML basic ("...") or literal ('...') string stands for; ValueError when
    `text` is not exactly one such string."""
    if len(text) < 2 or text[0] not in "\"'" or text[-1] != text[0]:
        raise ValueError("not a TOML string: %r" % text[:80])
    q, body = text[0], text[1:-1]
    if q == "'":
        if "'" in body:
            raise ValueError("not a TOML literal string: %r" % text[:80])
        return body
    out = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch == '"':
            raise ValueError("unescaped quote at index %d of %r" % (i + 1, text[:80]))
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= n:
            raise ValueError("unterminated escape in %r" % text[:80])
        e = body[i + 1]
        if e in _UNESCAPES:
            out.append(_UNESCAPES[e])
            i += 2
            continue
        width = {"u": 4, "U": 8}.get(e)
        digits = body[i + 2:i + 2 + width] if width else ""
        if not width or len(digits) != width or any(c not in "0123456789abcdefABCDEF"
                                                    for c in digits):
            raise ValueError("invalid escape at index %d of %r" % (i + 1, text[:80]))
        cp = int(digits, 16)
        if cp == 0 or 0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF:
            raise ValueError("escape \\%s%s is not a Unicode scalar value" % (e, digits))
        out.append(chr(cp))
        i += 2 + width
    return "".join(out)

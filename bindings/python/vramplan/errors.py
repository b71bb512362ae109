"""Exceptions raised for negative vp_status codes (include/vramplan/status.h)."""


class VramplanError(Exception):
    """Base class: every error the library reports.

    Attributes: ``code`` (the vp_status value), ``name`` ("VP_EPARSE"), ``message``,
    ``source``, ``line``, ``column`` (1-based, 0 when not applicable) and ``offset``.
    """

    def __init__(self, code, name, message, source="", line=0, column=0, offset=None):
        self.code = code
        self.name = name
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        self.offset = offset
        where = source
        if line:
            where = "%s:%d:%d" % (source, line, column)
        elif offset is not None and source:
            where = "%s: byte %d" % (source, offset)
        super().__init__("%s: %s (%s)" % (where, message, name) if where else "%s (%s)" % (message, name))


class ParseError(VramplanError):
    """Malformed input: syntax, duplicates, unknown keys, wrong kinds, encoding, truncation."""


class UnitError(VramplanError, ValueError):
    """A quantity without a unit, or with an unknown one ("24", "24 Gb")."""


class SizeOverflow(VramplanError, OverflowError):
    """A size that does not fit in 2^64 - 1 bytes: the library never wraps."""


class VersionMismatch(VramplanError):
    """The loaded library is older than this binding needs, or a struct version is unknown."""


class NotFound(VramplanError, LookupError):
    """A value that is not there (an unset sheet key, a figure the input does not give)."""


class InvalidInput(VramplanError, ValueError):
    """Inconsistent input (a layout whose degrees do not divide, an unknown offer)."""


class Unsupported(VramplanError):
    """An unsupported model type, format or option."""


class LimitExceeded(VramplanError):
    """A reader limit (nesting depth, header size)."""


class IOError_(VramplanError, OSError):
    """A file that cannot be opened, read or written."""


class OutOfMemory(VramplanError, MemoryError):
    """The library could not allocate."""


class Misuse(VramplanError, ValueError):
    """Invalid arguments to the API."""


_BY_CODE = {
    -1: OutOfMemory, -2: Misuse, -3: VersionMismatch, -4: IOError_, -5: Misuse, -6: NotFound,
    -10: ParseError, -11: ParseError, -12: ParseError, -13: ParseError, -14: ParseError,
    -15: ParseError, -16: ParseError, -17: ParseError, -20: UnitError, -21: InvalidInput,
    -22: SizeOverflow, -30: LimitExceeded, -40: Unsupported, -41: InvalidInput,
    -42: NotFound,
}


def error_class(code):
    """The exception class for a vp_status code (VramplanError for unknown codes)."""
    return _BY_CODE.get(code, VramplanError)

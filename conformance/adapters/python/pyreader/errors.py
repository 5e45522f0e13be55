"""The error codes of spec/errors.md that a reader reports for a dataset."""

MALFORMED = {"TRUNCATED", "BAD_MAGIC", "UNSUPPORTED_VERSION", "BAD_HEADER", "UNKNOWN_CODEC",
             "CORRUPT_STREAM", "SIZE_LIMIT", "BAD_JSON", "MISSING_FILE"}
INVALID = {"CHECKSUM_MISMATCH", "BAD_METADATA", "UNSUPPORTED_DTYPE", "INCONSISTENT", "UNSAFE_NAME"}


class FormatError(Exception):
    """A dataset broke a rule; `code` is one of the malformed or invalid codes."""

    def __init__(self, code, message, path=None, field=None):
        assert code in MALFORMED or code in INVALID, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path
        self.field = field

    def to_json(self):
        out = {"code": self.code, "message": self.message}
        if self.path is not None:
            out["path"] = self.path
        if self.field is not None:
            out["field"] = self.field
        return out

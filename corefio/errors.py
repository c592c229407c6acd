"""Exceptions raised by corefio.

Library code raises these; only the CLI turns them into a one-line message and an exit
code (see ``corefio.cli.EXIT_CODES``). Every error can carry the file, line and column it
concerns, and ``str(error)`` puts them in front of the message the way compilers do.
"""

from __future__ import annotations

from pathlib import Path


class CorefioError(Exception):
    """Base class of every error corefio raises on purpose."""

    #: exit code the CLI uses for this kind of error
    exit_code = 3

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.column = column

    @property
    def location(self) -> str:
        """``file:line:column`` with the parts that are known."""
        parts = [self.file or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def __str__(self) -> str:
        if self.file is None and self.line is None:
            return self.message
        return f"{self.location}: {self.message}"

    def located(self, file: str | Path) -> "CorefioError":
        """Return this error with ``file`` filled in when it was missing."""
        if self.file is None:
            self.file = str(file)
        return self


class FormatError(CorefioError):
    """Input that does not follow its format (malformed bracket, unclosed mention...)."""


class UsageError(CorefioError):
    """A bad request: an unknown metric or option value (exit code 2, like a bad option)."""

    exit_code = 2


class UnknownFormatError(UsageError):
    """A format name, extension or file content that no registered format claims."""


class UnsafeInputError(FormatError):
    """XML that asks for something unsafe: external entities, entity expansion, DTDs."""


class ModelError(CorefioError):
    """A document that breaks an invariant of the pivot model (dangling id, bad span...).

    ``problems`` lists every violation found, not only the first.
    """

    def __init__(self, problems: list[str], *, file: str | Path | None = None) -> None:
        self.problems = list(problems)
        shown = "; ".join(self.problems[:5])
        more = len(self.problems) - 5
        if more > 0:
            shown += f"; and {more} more"
        super().__init__(f"invalid document: {shown}", file=file)


class LossError(CorefioError):
    """Raised in strict mode when a writer would have to drop information."""

    exit_code = 5


class StrictModeError(CorefioError):
    """Raised in strict mode when warnings were reported."""

    exit_code = 5


class DocumentMismatchError(CorefioError):
    """Key and response do not contain the same documents (scoring)."""

    #: the key and response files whose documents do not match, when one of several pairs
    pair: tuple[str, str] | None = None


class AlignmentError(CorefioError):
    """Two documents that should spell the same text do not (key and response, or
    annotators of one document)."""


class OutputError(CorefioError):
    """An output could not be written (or would overwrite an input)."""

    exit_code = 6

"""The ``corefio`` command line (typer).

Exit codes (documented in README.md):

== =====================================================================================
0  success
1  internal error (a bug: please report it; set COREFIO_DEBUG=1 for the traceback)
2  usage error: bad option, unknown format or metric name, format that cannot be guessed
3  input error: missing or unreadable file, malformed or unsafe input, documents of key
   and response that do not match
4  validation failed (``validate`` found errors, or warnings under ``--strict``)
5  strict mode refused: a warning while reading or a loss while writing
6  output error: cannot write, or the output would overwrite an input
== =====================================================================================

Library errors are caught here and only here; the user sees one line naming the file,
line and column, never a traceback.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Callable, List, Optional

import typer

from . import api
from .diagnostics import Report
from .errors import CorefioError

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_INPUT, EXIT_INVALID, EXIT_STRICT, EXIT_OUTPUT = range(7)

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Convert, validate, view and score coreference annotations (MUC, CoNLL, CorefUD, "
    "jsonlines, RAF...) through one pivot model.",
)


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


def _echo_err(message: str) -> None:
    typer.echo(message, err=True)


def _print_report(report: Report, *, min_severity: str = "info") -> None:
    order = {"info": 0, "warning": 1, "error": 2}
    for d in report:
        if order[d.severity] >= order[min_severity]:
            _echo_err(d.format())


def edge(func: Callable) -> Callable:
    """Turn CorefioError into a one-line message and its exit code; hide tracebacks."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except typer.Exit:
            raise
        except CorefioError as exc:
            _echo_err(f"corefio: error: {exc}")
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            _echo_err("corefio: interrupted")
            raise typer.Exit(130) from None
        except Exception as exc:  # a bug
            if os.environ.get("COREFIO_DEBUG"):
                raise
            _echo_err(f"corefio: internal error: {type(exc).__name__}: {exc} "
                      "(set COREFIO_DEBUG=1 for the traceback)")
            raise typer.Exit(EXIT_INTERNAL) from None

    return wrapper


# -- formats --------------------------------------------------------------------------------
@app.command("formats")
@edge
def formats_command(
    output: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
) -> None:
    """List the formats, their file extensions and what each can express."""
    from .registry import all_formats, capability_summary

    specs = [capability_summary(s) for s in all_formats()]
    if output is OutputFormat.json:
        typer.echo(json.dumps(specs, indent=2))
        return
    for s in specs:
        rw = ("r" if s["read"] else "-") + ("w" if s["write"] else "-")
        typer.echo(f"{s['name']:<10} {rw}  {', '.join(s['extensions'])}")
        typer.echo(f"{'':<14}{s['description']}")
        yes = [k for k, v in s["capabilities"].items() if v]
        no = [k for k, v in s["capabilities"].items() if not v]
        typer.echo(f"{'':<14}expresses: {', '.join(yes) or '-'}")
        typer.echo(f"{'':<14}cannot:    {', '.join(no) or '-'}")


# -- info -----------------------------------------------------------------------------------
def document_info(doc) -> dict:
    from collections import Counter

    chains = doc.chain_indices()
    return {
        "name": doc.name,
        "part": doc.part,
        "tokens": len(doc.tokens.forms),
        "sentences": len(doc.sentences),
        "markables": len(doc.markables),
        "discontinuous": sum(1 for m in doc.markables if len(m.spans) > 1),
        "entities": len(doc.entities),
        "chains": len(chains),
        "singletons": sum(1 for c in chains if len(c) == 1),
        "links": dict(sorted(Counter(link.type for link in doc.links).items())),
    }


@app.command("info")
@edge
def info_command(
    files: List[Path] = typer.Argument(..., help="files to describe"),
    from_format: Optional[str] = typer.Option(None, "--from", help="input format (default: guess)"),
    output: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
) -> None:
    """Documents, tokens, markables, chains, singletons and links by type."""
    result = []
    for path in files:
        report = Report(str(path))
        corpus = api.read(path, from_format, report=report)
        _print_report(report, min_severity="warning")
        result.append({"file": str(path), "documents": [document_info(d) for d in corpus]})
    if output is OutputFormat.json:
        typer.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    for entry in result:
        docs = entry["documents"]
        typer.echo(f"{entry['file']}: {len(docs)} document(s)")
        for d in docs:
            part = f" part {d['part']}" if d["part"] is not None else ""
            links = ", ".join(f"{k}: {v}" for k, v in d["links"].items()) or "none"
            typer.echo(
                f"  {d['name']!r}{part}: {d['tokens']} tokens, {d['sentences']} sentences, "
                f"{d['markables']} markables ({d['discontinuous']} discontinuous), "
                f"{d['chains']} chains ({d['singletons']} singletons), "
                f"{d['entities']} entities, links: {links}"
            )


# -- convert --------------------------------------------------------------------------------
@app.command("convert")
@edge
def convert_command(
    source: Path = typer.Argument(..., help="input file"),
    target: Path = typer.Argument(..., help="output file (written atomically)"),
    from_format: Optional[str] = typer.Option(None, "--from", help="input format (default: guess)"),
    to_format: Optional[str] = typer.Option(None, "--to", help="output format (default: from extension)"),
    strict: bool = typer.Option(False, "--strict", help="fail on any reader warning or writer loss"),
    canonical: bool = typer.Option(False, "--canonical",
                                   help="ignore the source's layout; write the format's canonical form"),
    log: Optional[Path] = typer.Option(None, "--log", help="write all diagnostics as JSON here"),
) -> None:
    """Convert between formats (reader → pivot → writer), reporting every loss."""
    report = Report(str(source))
    options = {"canonical": True} if canonical else {}
    try:
        api.convert(source, target, from_format, to_format, strict=strict, report=report, **options)
    finally:
        _print_report(report)
        if log is not None:
            from .files import atomic_write

            atomic_write(log, report.to_json() + "\n", inputs=[source])
    losses = sum(1 for d in report if d.code.startswith("loss.") and d.severity != "info")
    typer.echo(f"converted {source} -> {target}" + (f" ({losses} kind(s) of loss reported)" if losses else ""))


# -- validate -------------------------------------------------------------------------------
@app.command("validate")
@edge
def validate_command(
    files: List[Path] = typer.Argument(..., help="files to validate"),
    from_format: Optional[str] = typer.Option(None, "--from", help="input format (default: guess)"),
    output: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
    strict: bool = typer.Option(False, "--strict", help="warnings count as failures"),
) -> None:
    """XSD validation (XML formats) and semantic checks: ids, references, spans, crossing."""
    from .validate import validate_file

    failed = False
    results = []
    for path in files:
        report = validate_file(path, from_format)
        bad = report.errors or (strict and report.warnings)
        failed = failed or bool(bad)
        results.append((path, report, bool(bad)))
    if output is OutputFormat.json:
        typer.echo(json.dumps(
            [{"file": str(p), "valid": not bad, "diagnostics": [d.to_dict() for d in r]}
             for p, r, bad in results], indent=2, ensure_ascii=False))
    else:
        for path, report, bad in results:
            for d in report:
                typer.echo(d.format())
            e, w = len(report.errors), len(report.warnings)
            typer.echo(f"{path}: {'INVALID' if bad else 'valid'} ({e} error(s), {w} warning(s))")
    if failed:
        raise typer.Exit(EXIT_INVALID)


# -- view -----------------------------------------------------------------------------------
@app.command("view")
@edge
def view_command(
    source: Path = typer.Argument(..., help="file to display (any readable format)"),
    output: Path = typer.Option(..., "-o", "--output", help="HTML page to write"),
    from_format: Optional[str] = typer.Option(None, "--from", help="input format (default: guess)"),
) -> None:
    """Render a file as an HTML page (xslt/raf-to-html.xsl): bracketed text and chains."""
    from .files import atomic_write
    from .xslt import render_html

    report = Report(str(source))
    corpus = api.read(source, from_format, report=report)
    _print_report(report, min_severity="warning")
    atomic_write(output, render_html(corpus), inputs=[source])
    typer.echo(f"wrote {output}")


# -- score -----------------------------------------------------------------------------------
class ScoreFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"


@app.command("score")
@edge
def score_command(
    key: Path = typer.Argument(..., help="the key (gold) file, any readable format"),
    response: Path = typer.Argument(..., help="the response (system) file, any readable format"),
    metric: List[str] = typer.Option(["default"], "--metric", "-m",
                                     help="metric name(s), repeatable or comma-separated; 'all' or 'default' "
                                          "(mentions, muc, bcub, ceafm, ceafe, blanc, lea, conll)"),
    per_document: bool = typer.Option(False, "--per-document", help="also show every document's scores"),
    keep_singletons: bool = typer.Option(True, "--keep-singletons/--drop-singletons",
                                         help="keep one-mention chains (default, as the reference scorer)"),
    output: ScoreFormat = typer.Option(ScoreFormat.text, "--format", help="text, json or csv"),
    macro: bool = typer.Option(False, "--macro", help="add the mean of document scores"),
    allow_missing: bool = typer.Option(False, "--allow-missing",
                                       help="score key documents missing from the response as empty"),
    from_format: Optional[str] = typer.Option(None, "--from", help="format of both inputs (default: guess)"),
    key_format: Optional[str] = typer.Option(None, "--key-format", help="format of the key"),
    response_format: Optional[str] = typer.Option(None, "--response-format", help="format of the response"),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="write the scores here instead of stdout"),
    strict: bool = typer.Option(False, "--strict", help="fail (exit 5) on any warning"),
    coefficients: str = typer.Option("1,0.75,0.5,0.25", "--coefficients",
                                     help="typed evaluation: k1,k2,k3,k4 for TP, WT, WL, WTL"),
    scheme_classes: Optional[int] = typer.Option(None, "--scheme-classes",
                                                 help="typed evaluation: number of classes of the scheme (n)"),
    type_attribute: str = typer.Option("coref_type", "--type-attribute", help="typed: markable attribute with the type code"),
    dominant_attribute: str = typer.Option("dominant", "--dominant-attribute", help="typed: markable attribute flagging dominant mentions"),
) -> None:
    """Score RESPONSE against KEY: MUC, B³, CEAF, BLANC, LEA, CoNLL, and more (see --metric)."""
    from fractions import Fraction

    from .files import atomic_write
    from .scoring import score

    try:
        k = [Fraction(x.strip()) for x in coefficients.split(",")]
        if len(k) != 4:
            raise ValueError
    except (ValueError, ZeroDivisionError):
        raise typer.BadParameter("give four numbers, e.g. 1,0.75,0.5,0.25", param_hint="--coefficients") from None
    report = Report()
    result = score(
        key, response, metric, keep_singletons=keep_singletons, per_document=per_document, macro=macro,
        allow_missing=allow_missing,
        report=report, key_format=key_format or from_format, response_format=response_format or from_format,
        coefficients=k, scheme_classes=scheme_classes, type_attribute=type_attribute,
        dominant_attribute=dominant_attribute,
    )
    _print_report(report, min_severity="warning")
    if strict:
        report.check_strict()
    if output is ScoreFormat.json:
        text = result.to_json(per_document) + "\n"
    elif output is ScoreFormat.csv:
        text = result.to_csv(per_document)
    else:
        text = result.to_text(per_document)
    if out is not None:
        atomic_write(out, text, inputs=[key, response])
    else:
        typer.echo(text, nl=False)


def main() -> None:
    """Console entry point.

    Once the command has finished and its output is flushed, the process ends with
    ``os._exit``: freeing a large heap object by object at interpreter shutdown takes
    longer than scoring a big corpus's last documents, and nothing is left to clean up
    (outputs are written and renamed before the command returns).
    """
    try:
        app()
        code = 0
    except SystemExit as exc:  # typer/click exit codes pass through
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # the reader closed the pipe (``| head``): nothing to add
        pass
    os._exit(code)

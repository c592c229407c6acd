"""MkDocs hook: the parts of the pages that corefio's registries already say.

A page asks for one with an HTML comment on a line of its own; the comment is replaced
by Markdown made from the code, so the site cannot drift from what corefio does:

``<!-- corefio:format-table -->``
    every registered format: name (linked to its page), extensions, read/write, what it is.
``<!-- corefio:format NAME -->``
    one format: what survives a conversion into it, what its writer does with each thing
    it cannot express (and the ``loss.*`` code that reports it), the losses only its
    writer finds, and its options.
``<!-- corefio:metric-table -->``
    every registered metric: name (linked to its page), what it is, how a corpus score
    is formed, its tested properties, whether it is in the default set.
``<!-- corefio:preset-table -->``
    every ``--preset``: the scorer and version it follows, the command it stands for,
    what it sets (:mod:`corefio.scoring.presets`).
``<!-- corefio:presets-using METRIC -->``
    the presets that score a metric, as a sentence.
``<!-- corefio:cdcr-styles -->``
    the published cross-document evaluation styles ``--style`` knows
    (:func:`corefio.scoring.crossdoc.styles_help`).

A registered format or metric without a page, or a page asking for a format that is not
registered, stops the build (the suite builds the site with ``--strict``).
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

MARKER = re.compile(r"^<!-- corefio:(format-table|format|metric-table|cdcr-styles|preset-table|presets-using)"
                    r"(?: ([\w:-]+))? -->$", re.M)

#: the page (under docs/metrics/) that documents each registered metric
METRIC_PAGES = {
    "mentions": "mentions", "muc": "muc", "bcub": "bcubed", "bcub_class": "bcubed", "ceafm": "ceaf",
    "ceafe": "ceaf", "blanc": "blanc", "lea": "lea", "conll": "conll", "bcub_0": "end-to-end",
    "bcub_all": "end-to-end", "bcub_rn": "end-to-end", "bcub_sys": "end-to-end", "ceafm_orig": "end-to-end",
    "ceafe_orig": "end-to-end", "ceafm_rn": "end-to-end", "ceafe_rn": "end-to-end", "ceafm_sys": "end-to-end",
    "ceafe_sys": "end-to-end", "kappa": "kappa", "kappa_d0": "kappa", "core": "core", "xcore": "core",
    "info": "information", "dmt": "distributional", "derr": "distributional", "typed": "typed",
}

#: how a corpus score is formed, in words (corefio.scoring.registry.CORPUS_MODES)
CORPUS_WORDS = {
    "sum": "sum of document counts",
    "profile": "the corpus as one document",
    "counts": "from the summed counts",
    "derived": "from other metrics' corpus scores",
    "typed": "sum of typed annotation counts",
}


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs' signature)
    def replace(match: re.Match) -> str:
        kind, argument = match.group(1), match.group(2)
        if kind == "format-table":
            return format_table()
        if kind == "format":
            return format_section(argument)
        if kind == "preset-table":
            return preset_table()
        if kind == "presets-using":
            return presets_using(argument)
        if kind == "cdcr-styles":
            from corefio.scoring.crossdoc import styles_help

            return styles_help()
        return metric_table()

    return MARKER.sub(replace, markdown)


# -- formats ----------------------------------------------------------------------------------
def format_table() -> str:
    from corefio.formats.registry import all_formats

    rows = ["| format | extensions | reads / writes | what it is |", "|---|---|---|---|"]
    for spec in all_formats():
        extensions = ", ".join(f"`{e}`" for e in spec.extensions + spec.ambiguous_extensions) or "a directory"
        rw = " / ".join(word for word, yes in (("reads", spec.can_read), ("writes", spec.can_write)) if yes)
        rows.append(f"| [`{spec.name}`]({spec.name}.md) | {extensions} | {rw} | {_cell(spec.description)} |")
    return "\n".join(rows)


def format_section(name: str | None) -> str:
    from corefio.formats.losses import FEATURES, TREATMENT_TEXT, treatment
    from corefio.formats.registry import all_formats

    spec = next((s for s in all_formats() if s.name == name), None)
    if spec is None:
        raise ValueError(f"docs: <!-- corefio:format {name} --> names no registered format")
    caps = spec.capabilities.as_dict()
    out = [f"**Registered name** `{spec.name}`"
           + (f" (also {', '.join(f'`{a}`' for a in spec.aliases)})" if spec.aliases else "")
           + f" · **extensions** {', '.join(f'`{e}`' for e in spec.extensions + spec.ambiguous_extensions) or 'a directory'}"
           + f" · **reads** {'yes' if spec.can_read else 'no'} · **writes** {'yes' if spec.can_write else 'no'}",
           "", f"{spec.description}.", ""]
    out += ["## What survives a conversion into it", ""]
    if not spec.can_write:
        out += ["corefio reads this format only; nothing is written in it.", ""]
    out += ["| what the pivot model holds | kept | otherwise (the loss is reported as) |", "|---|---|---|"]
    for feature in FEATURES:
        value = caps[feature.name]
        if value is True:
            kept, otherwise = "yes", ""
        else:
            kept = "only " + _names(value) if value else "no"
            done = treatment(feature.name, spec.name)
            code = f"`loss.{feature.name.replace('_', '-')}`"
            if done == "writer":
                said = "the writer reports what it cannot write: see below"
            elif done == "covered":
                said = "reported with the crossing mentions"
            else:
                said = TREATMENT_TEXT.get(done, done)
            otherwise = f"{said} ({code})" if done not in ("writer", "covered") else said
        out.append(f"| {feature.message} | {kept} | {otherwise} |")
    for extra in ("multiple_documents",):
        if extra in caps and caps[extra] is not True:
            out.append("| several documents in one file | no | written one file per document or refused |")
    found = writer_losses(spec)
    if found:
        out += ["", "Losses only the writer can find (it meets them while writing):", ""]
        out += [f"* `loss.{kind}`: {_cell(message)}" for kind, message in found]
    out += ["", "## Options", ""]
    if spec.options:
        out += ["| option | applies to | type | default | what it does |", "|---|---|---|---|---|"]
        for option in spec.options:
            kind = option.type.__name__ if option.choices is None else " \\| ".join(option.choices)
            out.append(f"| `{option.name}` | {option.applies_to} | {kind} | `{option.default!r}` | "
                       f"{_cell(option.help)} |")
        out += ["", "Give them as `--read-option NAME=VALUE` / `--write-option NAME=VALUE` on the command line, "
                    "or as keyword arguments of `corefio.read`, `corefio.write` and `corefio.convert`."]
    else:
        out.append("This format has no options.")
    return "\n".join(out)


def _names(value) -> str:
    """A list of attribute names, runs such as apred_1 … apred_99 said once."""
    runs: dict[str, list[int]] = {}
    plain = []
    for name in value:
        match = re.fullmatch(r"(.*?_)(\d+)", name)
        if match:
            runs.setdefault(match.group(1), []).append(int(match.group(2)))
        else:
            plain.append(name)
    said = [f"`{n}`" for n in sorted(plain)]
    said += [f"`{prefix}1` … `{prefix}{max(numbers)}`" for prefix, numbers in sorted(runs.items())]
    return ", ".join(said)


def writer_losses(spec) -> list[tuple[str, str]]:
    """``(kind, message)`` of every ``….lose("kind", "message", …)`` call in the writer's
    module (its whole package for a format that is a package), in source order."""
    function = spec.write or spec.write_files
    if function is None:
        return []
    source = Path(inspect.getsourcefile(function))
    package = source.parent
    files = sorted(package.glob("*.py")) if package.name != "formats" else [source]
    found: list[tuple[str, str]] = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "lose"):
                continue
            if len(node.args) < 2 or not isinstance(node.args[0], ast.Constant):
                continue
            message = _text(node.args[1])
            done = next((_text(k.value) for k in node.keywords if k.arg == "done"), None)
            entry = (node.args[0].value, message + (f"; {done}" if done else ""))
            if entry not in found:
                found.append(entry)
    return found


def _text(node: ast.AST) -> str:
    """A string literal as written, ``{…}`` where an f-string formats a value."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(v) if isinstance(v, ast.Constant) else "…" for v in node.values)
    return "…"


# -- metrics ----------------------------------------------------------------------------------
def metric_table() -> str:
    from corefio.scoring.registry import REGISTRY

    missing = [name for name in REGISTRY if name not in METRIC_PAGES]
    if missing:
        raise ValueError(f"docs: metrics without a page in docs/_hooks/corefio_docs.py: {missing}")
    rows = ["| name | metric | corpus score | properties (tested) | default |", "|---|---|---|---|---|"]
    for metric in REGISTRY.values():
        properties = ", ".join(sorted(metric.properties)) or "—"
        if metric.has("bounded"):
            properties = properties.replace("bounded", f"bounded [{metric.bounds[0]}, {metric.bounds[1]}]")
        page = METRIC_PAGES[metric.name]
        rows.append(f"| [`{metric.name}`]({page}.md#{metric.name}) | {_cell(metric.description)} "
                    f"| {CORPUS_WORDS[metric.corpus]} | {properties} | {'yes' if metric.default else ''} |")
    return "\n".join(rows)


# -- presets ----------------------------------------------------------------------------------
def preset_table() -> str:
    from corefio.scoring.presets import all_presets

    rows = ["| preset | follows | stands for | what it scores |", "|---|---|---|---|"]
    for preset in all_presets():
        names = f"`{preset.name}`" + (f" (also {', '.join(f'`{a}`' for a in preset.aliases)})" if preset.aliases else "")
        rows.append(f"| {names} | {preset.follows} | `{preset.command}` | {_cell(preset.description)} |")
    return "\n".join(rows)


def presets_using(metric: str | None) -> str:
    """The presets whose metrics include ``metric``, as a sentence for its page."""
    from corefio.scoring.presets import all_presets
    from corefio.scoring.registry import REGISTRY, resolve_metrics

    if metric not in REGISTRY:
        raise ValueError(f"docs: <!-- corefio:presets-using {metric} --> names no registered metric")
    using = [p.name for p in all_presets() if "metrics" in p.options
             and metric in resolve_metrics(list(p.options["metrics"]))]
    said = ", ".join(f"`{name}`" for name in using) if using else "none"
    return f"**Presets that score `{metric}`:** {said} ([Presets](index.md#presets))."


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")

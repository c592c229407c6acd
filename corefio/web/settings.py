"""The settings of a score as the forms give them: a preset first (the settings of a
community scorer, :mod:`corefio.scoring.presets`), then each option either left "as the
preset" or chosen, as ``corefio score --preset NAME --match head`` takes them.

A form sends every field, so "left as the preset" must be told apart from "chosen":

* an option's menu starts with an empty choice, "as the preset (…)", the default;
* the metric checkboxes start as some preset's metrics, and the form says which
  (``metrics_of``); checkboxes that still show exactly that preset's metrics were not
  chosen, so the preset picked (perhaps another one, changed without JavaScript) gives
  the metrics. With JavaScript, choosing a preset ticks its metrics and updates
  ``metrics_of``.

:func:`settings_of` gives the :class:`~corefio.scoring.presets.Settings` (the options
used, the preset, where they differ from its scorer) and :func:`score_keywords` the
keyword arguments of :func:`corefio.score` for them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from ..errors import UsageError
from .errors import WebError

#: the preset a form starts with: scorer.pl's, the CoNLL-2012 reference scorer
DEFAULT_PRESET = "conll2012"
MATCH_MODES = ("exact", "head", "min", "partial")
ZERO_MODES = ("drop", "linear", "dependent")  # corefio.model.zeros (not imported: light start)
REPEAT_RULES = ("scorer", "corefud")


@dataclass(frozen=True)
class PresetChoice:
    """A preset as a form's menu shows it."""

    name: str
    label: str
    description: str
    command: str
    metrics: tuple[str, ...]
    options: dict

    @property
    def metrics_text(self) -> str:
        return " ".join(self.metrics)


#: the menu's choice of no preset (corefio's defaults); its name in ``metrics_of``
NO_PRESET = "-"


def choices() -> list[PresetChoice]:
    """Every preset once, in the presets' table order, then corefio's own defaults
    (name ``""``), with their options spelt out (the form's menu, and what JavaScript
    applies when one is chosen)."""
    from ..scoring.presets import all_presets, resolve

    out = []
    for p in [*all_presets(), None]:
        o = resolve(p).options
        label = f"{p.name} — {p.follows}" if p else "none — corefio's defaults"
        about = p.description if p else "corefio's own defaults: scorer.pl's settings, with LEA among the metrics"
        out.append(PresetChoice(p.name if p else "", label, about, p.command if p else "corefio score KEY RESPONSE",
                                tuple(metric_list(o["metrics"])),
                                {"match": o["match"], "singletons": "keep" if o["keep_singletons"] else "drop",
                                 "zeros": o["zero_match"] if o["keep_zeros"] else "drop", "repeats": o["repeats"]}))
    return out


def current(presets: list[PresetChoice], chosen: dict | None) -> PresetChoice:
    """The menu's choice a form shows: the one chosen before (a form shown again), else
    :data:`DEFAULT_PRESET`."""
    name = chosen.get("preset", DEFAULT_PRESET) if chosen else DEFAULT_PRESET
    return next((p for p in presets if p.name == name), next(p for p in presets if p.name == DEFAULT_PRESET))


def zero_words(value: str) -> str:
    return "drop" if value == "drop" else f"keep, match {'by dependencies' if value == 'dependent' else 'by place'}"


def repeat_words(value: str) -> str:
    return "as scorer.pl counts it" if value == "scorer" else "as corefud-scorer counts it"


def metric_list(metrics: Iterable[str]) -> list[str]:
    """Metric names as the registry resolves them (``default``, ``all``), without the
    mention identification that every score reports."""
    from ..scoring.registry import resolve_metrics

    return [m for m in resolve_metrics(list(metrics)) if m != "mentions"]


def split(metrics: list[str] | str | None) -> list[str]:
    """Metric names from a form (repeated fields) or the API (comma-separated)."""
    items = [metrics] if isinstance(metrics, str) else list(metrics or [])
    return list(dict.fromkeys(m for item in items for m in re.split(r"[,\s]+", item) if m))


def given_options(metrics: list[str] | str | None, match: str, singletons: str, zeros: str, repeats: str,
                  metrics_of: str = "") -> dict[str, Any]:
    """The options a form or an API call chose (empty: as the preset), as
    :func:`corefio.scoring.presets.resolve` takes them; a 400 names what is wrong."""
    from ..scoring.presets import resolve

    given: dict[str, Any] = {}
    names = split(metrics)
    if names:
        if metrics_of:
            try:
                shown = metric_list(resolve(None if metrics_of == NO_PRESET else metrics_of).options["metrics"])
            except UsageError:
                raise WebError(400, f"unknown preset {metrics_of!r}") from None
            if sorted(metric_list(names)) != sorted(shown):
                given["metrics"] = names
        else:
            given["metrics"] = names
    if match:
        if match not in MATCH_MODES:
            raise WebError(400, f"unknown matching mode {match!r} (known: {', '.join(MATCH_MODES)})")
        given["match"] = match
    if singletons:
        given["keep_singletons"] = str(singletons).lower() not in ("drop", "false", "0", "no", "off")
    if zeros:
        if zeros not in ZERO_MODES:
            raise WebError(400, f"unknown zero handling {zeros!r} (known: {', '.join(ZERO_MODES)})")
        given["keep_zeros"] = zeros != "drop"
        if zeros != "drop":
            given["zero_match"] = zeros
    if repeats:
        if repeats not in REPEAT_RULES:
            raise WebError(400, f"unknown rule for a span in two chains {repeats!r} (known: "
                                f"{', '.join(REPEAT_RULES)})")
        given["repeats"] = repeats
    return given


def settings_of(preset: str | None, given: dict[str, Any]) -> Any:
    """The :class:`~corefio.scoring.presets.Settings` of a preset (None or empty: corefio's
    defaults) and the options chosen; a 400 for an unknown preset or metric."""
    from ..scoring.presets import resolve

    try:
        settings = resolve(preset or None, given)
        metric_list(settings.options["metrics"])
    except UsageError as exc:
        raise WebError(400, exc.message) from None
    return settings


def score_keywords(settings: Any) -> dict[str, Any]:
    """The keyword arguments of :func:`corefio.score` for ``settings`` (metrics apart)."""
    o = settings.options
    return {"match": o["match"], "keep_singletons": o["keep_singletons"], "keep_zeros": o["keep_zeros"],
            "zero_match": o["zero_match"], "repeats": o["repeats"]}


def zeros_of(settings: Any) -> str:
    """The zero handling of ``settings`` as the key vs response view takes it."""
    o = settings.options
    return o["zero_match"] if o["keep_zeros"] else "drop"


def lines(settings: Any, with_metrics: bool = True) -> list[str]:
    """What the result pages say of the settings: those used, where they differ from the
    preset's scorer (with the command-line options that give them), the preset's note
    (the lines of the command line's output, the first without its heading, which the
    page gives in words)."""
    if settings is None:
        return []
    out = settings.describe(with_metrics, width=None)
    if out and out[0].startswith("settings ("):
        head, _, rest = out[0].partition("): ")
        like = head.split("; ", 1)[1] if "; " in head and settings.preset is None else ""
        out[0] = "used: " + rest + (f" ({like})" if like else "")
    return out


__all__ = ["DEFAULT_PRESET", "NO_PRESET", "PresetChoice", "choices", "current", "repeat_words", "zero_words", "given_options", "lines", "metric_list", "score_keywords",
           "settings_of", "split", "zeros_of"]

"""Presets: the settings of the community's scorers, by name, for ``score``, ``compare`` and
``agree``'s pairwise table (``--preset NAME``; ``corefio.score(..., preset=NAME)``).

A preset is one row of :data:`PRESETS`: the scorer and version it follows, the command of
that scorer it stands for, a one-line description, and the options it sets: the
ordinary scorer's (``metrics``, ``keep_singletons``, ``match``, ``keep_zeros``,
``zero_match``, ``repeats``: the keyword arguments of :func:`corefio.score`; ``repeats``
names the scorer whose counting rules are followed, for spans listed twice and for
BLANC's halves) and, for the
Universal Anaphora scorer's settings, the relations it scores beyond identity
(:class:`~.anaphora.AnaphoraSettings`, printed after the table).

A preset gives defaults, not orders: an option given as well (``--preset corefud --match
exact``) wins, and the output says where the settings used differ from the preset's
scorer (:class:`Settings`). Without a preset the reference point is corefio's own
defaults, which are scorer.pl's but for the metrics.

Every preset that follows a scorer's defaults is tested against that scorer's stored
output on real files (``tests/test_presets.py``): ``conll2012`` against scorer.pl v8.01
(``tests/data/wild/conll2012/judged.json``), ``corefud`` against corefud-scorer
(``tests/data/wild/conllu/judges.json``), ``codicrac`` against the UA scorer 2.0
(``tests/data/wild/ua/judges.json``); the UA scorer's shared-task settings (``-t NAME``)
are checked in ``tests/test_ua_scoring.py``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import UsageError

#: the options of the ordinary scorer a preset may set, in the order they are described
OPTION_NAMES = ("metrics", "match", "keep_singletons", "keep_zeros", "zero_match", "repeats")
#: corefio's own defaults (the keyword arguments of :func:`corefio.score`)
DEFAULTS: dict[str, Any] = {"metrics": ("default",), "match": "exact", "keep_singletons": True,
                            "keep_zeros": False, "zero_match": "dependent", "repeats": "scorer"}

_SCORER_PL = "conll/reference-coreference-scorers@f49f3f8"
_COREFUD = "ufal/corefud-scorer@4fd7b0e"
_UA = "juntaoy/universal-anaphora-scorer@127ba3d (branch v2.0-Beta-Michal)"


#: each mode of :class:`AnaphoraSettings` in words
_MODE_WORDS = {"identity": "identity chains", "split_antecedents": "chains with split antecedents",
               "split_antecedents_only": "split antecedents alone", "discourse_deixis": "discourse-deixis chains",
               "non_referring": "recognition of non-referring markables",
               "bridging": "bridging (anaphor recognition, mention- and entity-level)",
               "mor": "the mention overlap ratio", "zero": "the zero score"}


@dataclass(frozen=True)
class AnaphoraSettings:
    """What the Universal Anaphora scorer scores (:mod:`.anaphora`, whose module text
    describes each mode); a preset of the UA scorer's sets some of them."""

    metrics: tuple[str, ...] = ("muc", "bcub", "ceafe")
    keep_singletons: bool = True
    identity: bool = False
    split_antecedents: bool = False
    split_antecedents_only: bool = False
    discourse_deixis: bool = False
    non_referring: bool = False
    keep_non_referring: bool = False
    bridging: bool = False
    mor: bool = False
    zero: bool = False
    #: keep zero mentions (UA ``-z``; dropped otherwise, as the UA scorer does)
    keep_zeros: bool = False
    #: mention matching of the chain scores: ``exact``, ``default`` (UA ``-p``: the CorefUD
    #: partial match, ``Min`` or a CorefUD key's head) or ``craft`` (UA ``-p
    #: --partial-match-method craft``)
    partial: str = "exact"
    #: whose MOR and zero score: ``ua`` (the UA scorer 2.0's: MOR over the mentions its
    #: matching pairs, zeros matched by place) or ``corefud`` (corefud-scorer 1.2's: MOR
    #: as the CRAC 2022 findings define it, the largest overlap whatever the matching; the
    #: zero score over the mentions paired by ``match`` and ``zero_match``, the ordinary
    #: scorer's options, as corefud-scorer's ``-a`` and ``-z``)
    scorer: str = "ua"
    #: with ``scorer="corefud"``: the mention matching (``exact``, ``head``, ``partial``)
    #: and the zero matching (``dependent``, ``linear``) of the zero score
    match: str = "head"
    zero_match: str = "dependent"

    def modes(self) -> list[str]:
        names = ["identity", "split_antecedents", "split_antecedents_only", "discourse_deixis", "non_referring",
                 "bridging", "mor", "zero"]
        return [n for n in names if getattr(self, n)]

    def describe(self) -> str:
        """What is scored and how, in words (the settings line of a preset of the UA
        scorer's, whose numbers are these)."""
        modes = self.modes()
        words = [", ".join(_MODE_WORDS[m] for m in modes)]
        if set(modes) & {"identity", "split_antecedents", "split_antecedents_only", "discourse_deixis"}:
            words.append("metrics " + ", ".join(self.metrics))
            words.append({"exact": "exact matching", "default": "partial matching (Min, a CorefUD key's head)",
                          "craft": "CRAFT partial matching"}.get(self.partial, self.partial))
            keeps = self.keep_singletons or self.split_antecedents or self.split_antecedents_only \
                or self.discourse_deixis
            words.append("singletons kept" if keeps else "singletons left out")
            words.append("non-referring markables " + ("kept as chains as well" if self.keep_non_referring
                                                       else "left out"))
        if set(modes) & {"identity", "split_antecedents", "mor", "zero"}:
            words.append("zeros kept and matched by their places" if self.keep_zeros else "zeros left out")
        return "; ".join(w for w in words if w)


@dataclass(frozen=True)
class Preset:
    """A scorer's settings: what :data:`PRESETS` holds for each name."""

    name: str
    #: the scorer it follows, and which version (the repository and commit judged)
    tool: str
    version: str
    source: str
    #: that scorer's command these settings stand for
    command: str
    description: str
    #: options of the ordinary scorer (names of :data:`OPTION_NAMES`); those left out
    #: keep corefio's defaults
    options: Mapping[str, Any] = field(default_factory=dict)
    #: the Universal Anaphora sections it adds (None: none)
    anaphora: AnaphoraSettings | None = None
    aliases: tuple[str, ...] = ()
    #: what a reader of the output should know (shown after the settings)
    note: str = ""

    @property
    def follows(self) -> str:
        """``scorer.pl 8.01``: the tool and its version, as the outputs name it."""
        return f"{self.tool} {self.version}"

    def to_dict(self) -> dict[str, Any]:
        """The documented JSON shape (``corefio presets --format json``, ``settings.preset``)."""
        out: dict[str, Any] = {"name": self.name, "aliases": list(self.aliases), "tool": self.tool,
                               "version": self.version, "source": self.source, "command": self.command,
                               "description": self.description, "note": self.note,
                               "options": {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()}}
        out["anaphora"] = self.anaphora.modes() if self.anaphora is not None else []
        return out


#: what the output of a preset of the UA scorer's says after its settings
UA_NOTE = ("the scores are the UA scorer's; --format json also gives corefio's ordinary scores with the same "
           "options ('corpus': non-referring markables and split-antecedent plurals scored as chains)")


#: what the output of the corefud preset says after its settings
COREFUD_NOTE = ("MOR and the zero score are corefud-scorer's: MOR pairs mentions by their largest overlap "
                "whatever the matching (the UA scorer's MOR, --preset crac22, pairs them by its matching); BLANC "
                "leaves out a half only when neither key nor response has a link of its kind, as corefud-scorer "
                "does (scorer.pl: when the key has none; --repeats scorer)")


def _ua(name: str, description: str, anaphora: AnaphoraSettings, options: Mapping[str, Any],
        aliases: tuple[str, ...] = (), note: str = UA_NOTE) -> Preset:
    """One of the UA scorer's shared-task settings (``-t NAME``)."""
    return Preset(name, "UA scorer", "2.0", _UA, f"python ua-scorer.py KEY RESPONSE -t {name}", description,
                  options, anaphora, aliases, note)


_CHAINS = ("muc", "bcub", "ceafe", "conll")

#: every preset, by name (aliases too), in the order ``--help`` lists them
PRESETS: dict[str, Preset] = {}
for _preset in (
    Preset("conll2012", "scorer.pl", "8.01", _SCORER_PL, "perl scorer.pl all KEY RESPONSE none",
           "the CoNLL-2011/2012 reference scorer: MUC, B3, CEAFm, CEAFe, BLANC and their CoNLL mean, mention "
           "identification; singletons kept, exact spans",
           {"metrics": ("mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "conll"), "match": "exact",
            "keep_singletons": True, "keep_zeros": False, "repeats": "scorer"}),
    Preset("corefud", "corefud-scorer", "1.2", _COREFUD, "python corefud-scorer.py KEY RESPONSE",
           "the CorefUD scorer (CRAC shared tasks): MUC, B3, CEAFe, CEAFm, BLANC, LEA, CoNLL mean, the mention "
           "overlap ratio and the zero score; head matching, singletons left out, zeros kept and matched by their "
           "dependencies",
           {"metrics": ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "conll"), "match": "head",
            "keep_singletons": False, "keep_zeros": True, "zero_match": "dependent", "repeats": "corefud"},
           AnaphoraSettings(keep_singletons=False, mor=True, zero=True, keep_zeros=True, scorer="corefud"),
           aliases=("crac",), note=COREFUD_NOTE),
    Preset("codicrac", "UA scorer", "2.0", _UA, "python ua-scorer.py KEY RESPONSE",
           "the Universal Anaphora scorer's defaults (CODI-CRAC): identity MUC, B3, CEAFe and their CoNLL mean "
           "without singletons, split antecedents, non-referring markables or zeros; exact spans",
           {"metrics": _CHAINS, "match": "exact", "keep_singletons": False, "keep_zeros": False},
           AnaphoraSettings(identity=True, keep_singletons=False), note=UA_NOTE),
    _ua("conll12", "UA -t conll12: MUC, B3, CEAFe, CoNLL; singletons and split antecedents left out",
        AnaphoraSettings(keep_singletons=False, identity=True), {"metrics": _CHAINS, "keep_singletons": False}),
    _ua("crac18", "UA -t crac18 (ARRAU): MUC, B3, CEAFe with singletons, plus non-referring recognition",
        AnaphoraSettings(identity=True, non_referring=True), {"metrics": _CHAINS, "keep_singletons": True}),
    _ua("craft19", "UA -t craft19: MUC, B3, CEAFe with singletons, no split antecedents, the CRAFT partial match "
                   "(in the anaphora identity section; the ordinary table matches exactly)",
        AnaphoraSettings(identity=True, partial="craft"), {"metrics": _CHAINS, "keep_singletons": True}),
    _ua("crac22", "UA -t crac22 (CorefUD): LEA, MUC, B3, CEAFe, CEAFm, BLANC without singletons, zeros kept, "
                  "partial matching, zeros matched by place, plus the mention overlap ratio and the zero score",
        AnaphoraSettings(metrics=("lea", "muc", "bcub", "ceafe", "ceafm", "blanc"), keep_singletons=False,
                         identity=True, mor=True, zero=True, keep_zeros=True, partial="default"),
        {"metrics": ("lea", "muc", "bcub", "ceafe", "ceafm", "blanc", "conll"), "keep_singletons": False,
         "match": "partial", "keep_zeros": True, "zero_match": "linear"},
        note=UA_NOTE + "; MOR is the UA scorer's (over the mentions its matching pairs: corefud-scorer's, "
        "--preset corefud, pairs them by their largest overlap)"),
    _ua("codicrac22ar", "UA -t codicrac22ar (anaphora resolution): MUC, B3, CEAFe with singletons and split "
                        "antecedents", AnaphoraSettings(split_antecedents=True),
        {"metrics": _CHAINS, "keep_singletons": True}),
    _ua("codicrac22br", "UA -t codicrac22br (bridging): anaphor recognition, mention- and entity-level full "
                        "bridging", AnaphoraSettings(bridging=True), {}, aliases=("br",)),
    _ua("codicrac22dd", "UA -t codicrac22dd (discourse deixis): MUC, B3, CEAFe on discourse-deixis chains, "
                        "singletons and split antecedents kept", AnaphoraSettings(discourse_deixis=True), {},
        aliases=("dd",)),
):
    for _name in (_preset.name, *_preset.aliases):
        PRESETS[_name] = _preset


def all_presets() -> list[Preset]:
    """Every preset once (aliases not repeated), in table order."""
    return list({id(p): p for p in PRESETS.values()}.values())


def get_preset(name: str) -> Preset:
    """The preset called ``name`` (or an alias); :class:`UsageError` listing the names otherwise."""
    try:
        return PRESETS[name]
    except KeyError:
        raise UsageError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}") from None


def preset_help() -> str:
    """The ``--preset`` help of the command line, from the table."""
    names = ", ".join(p.name + (f" ({'/'.join(p.aliases)})" if p.aliases else "") for p in all_presets())
    return (f"a scorer's settings: {names}. conll2012 is scorer.pl 8.01's, corefud corefud-scorer's defaults, "
            "codicrac the UA scorer 2.0's, the others the UA scorer's -t; options given as well override it "
            "(`corefio presets` describes each)")


# -- what a score used ------------------------------------------------------------------------------
def _metric_names(metrics: Any) -> list[str]:
    from .registry import resolve_metrics

    return resolve_metrics(list(metrics) if not isinstance(metrics, str) else [metrics])


def _same(name: str, a: Any, b: Any) -> bool:
    if name == "metrics":
        return _metric_names(a) == _metric_names(b)
    return a == b


_FLAGS = {"match": "--match {}", "keep_zeros": "--keep-zeros", "zero_match": "--zero-match {}",
          "repeats": "--repeats {}", "metrics": "--metric {}"}


def _phrase(name: str, value: Any) -> str:
    """An option's value in words (``head matching``, ``singletons left out``)."""
    if name == "metrics":
        return "metrics " + ", ".join(m for m in _metric_names(value) if m != "mentions")
    if name == "match":
        return f"{value} matching"
    if name == "keep_singletons":
        return "singletons kept" if value else "singletons left out"
    if name == "keep_zeros":
        return "zeros kept" if value else "zeros left out"
    if name == "zero_match":
        return "zeros matched by their dependencies" if value == "dependent" else "zeros matched by their places"
    if name == "repeats":
        return "a span in two chains counted as " + ("scorer.pl does" if value == "scorer" else "corefud-scorer does")
    return f"{name} {value}"


def _flag(name: str, value: Any) -> str:
    if name == "keep_singletons":
        return "--keep-singletons" if value else "--drop-singletons"
    if name == "keep_zeros":
        return "--keep-zeros" if value else "no --keep-zeros"
    if name == "metrics":
        return "--metric " + ",".join(m for m in _metric_names(value) if m != "mentions")
    return _FLAGS[name].format(value)


@dataclass(frozen=True)
class Settings:
    """The settings a score used: the options of the ordinary scorer (all of
    :data:`OPTION_NAMES`), the preset they started from (None: corefio's defaults) and
    the Universal Anaphora settings, if any. :meth:`differences` and :meth:`describe`
    say where they differ from the preset's scorer."""

    options: Mapping[str, Any]
    preset: Preset | None = None
    anaphora: AnaphoraSettings | None = None

    @property
    def reference(self) -> Mapping[str, Any]:
        """What the options are compared with: the preset's, else corefio's defaults."""
        return {**DEFAULTS, **(self.preset.options if self.preset is not None else {})}

    def differences(self, with_metrics: bool = True) -> dict[str, tuple[Any, Any]]:
        """``{option: (used, the reference's)}`` for the options that differ. Zero
        matching counts only where zeros are kept; ``with_metrics=False`` leaves the
        metrics out (a table whose metrics are fixed: ``agree``)."""
        reference = self.reference
        out = {}
        for name in OPTION_NAMES if with_metrics else OPTION_NAMES[1:]:
            if name == "zero_match" and not self.options["keep_zeros"]:
                continue
            if name == "metrics" and self.preset is None:
                continue  # metrics named without a preset are no departure from anything
            if not _same(name, self.options[name], reference[name]):
                out[name] = (self.options[name], reference[name])
        return out

    def same_as(self) -> Preset | None:
        """A preset whose settings these are but for the metrics (shown when none was named)."""
        for preset in all_presets():
            candidate = Settings(self.options, preset)
            if preset.anaphora is None and not set(candidate.differences()) - {"metrics"}:
                return preset
        return None

    def describe(self, with_metrics: bool = True, width: int | None = 100) -> list[str]:
        """The lines the text output ends with: the settings used, where they differ from
        the preset's scorer (or corefio's defaults), and the preset's note
        (``with_metrics=False``: without the metrics, see :meth:`differences`); each
        wrapped at ``width`` characters (None: one line each), its next lines indented."""
        o = self.options
        zeros = "zeros kept and " + _phrase("zero_match", o["zero_match"])[6:] if o["keep_zeros"] else "zeros left out"
        words = ", ".join([_phrase("match", o["match"]), _phrase("keep_singletons", o["keep_singletons"]), zeros,
                           _phrase("repeats", o["repeats"])])
        if with_metrics:
            words += "; " + _phrase("metrics", o["metrics"])
        if self.preset is not None and self.preset.tool == "UA scorer" and self.anaphora is not None \
                and self.anaphora.modes():
            # the score is the UA scorer's: its settings are those said
            words = "Universal Anaphora: " + self.anaphora.describe()
        elif self.anaphora is not None and self.anaphora.scorer == "corefud":
            words += "; also corefud-scorer's " + " and ".join(
                {"mor": "mention overlap ratio", "zero": "zero score"}.get(m, m) for m in self.anaphora.modes())
        elif self.anaphora is not None and self.anaphora.modes():
            words += "; Universal Anaphora: " + ", ".join(self.anaphora.modes())
        if self.preset is not None:
            head = f"preset {self.preset.name}, {self.preset.follows}"
        else:
            like = self.same_as()
            head = (f"no preset; {like.follows}'s but for the metrics: --preset {like.name}" if like is not None
                    else "no preset")
        lines = [f"settings ({head}): {words}"]
        differs = self.differences(with_metrics)
        if differs:
            whom = self.preset.follows if self.preset is not None else "corefio"
            lines.append(f"differs from {'the preset' if self.preset is not None else 'the defaults'}: " + "; ".join(
                _phrase(n, used) if n == "metrics" else f"{_phrase(n, used)} ({_flag(n, used)}; {whom}: "
                f"{_phrase(n, theirs)})" for n, (used, theirs) in differs.items()))
        if self.preset is not None and self.preset.note:
            lines.append(f"note: {self.preset.note}")
        if width is None:
            return lines
        import textwrap

        return [piece for line in lines for piece in textwrap.wrap(line, width, subsequent_indent="  ",
                                                                   break_on_hyphens=False)]

    def to_dict(self, with_metrics: bool = True) -> dict[str, Any]:
        """The ``settings`` object of the JSON outputs (see :meth:`differences`)."""
        options = {k: (_metric_names(v) if k == "metrics" else v) for k, v in self.options.items()
                   if with_metrics or k != "metrics"}
        return {"preset": self.preset.to_dict() if self.preset is not None else None, **options,
                "anaphora": self.anaphora.modes() if self.anaphora is not None else [],
                "differs": {n: {"used": _jsonable(n, used), "reference": _jsonable(n, theirs)}
                            for n, (used, theirs) in self.differences(with_metrics).items()}}


def _jsonable(name: str, value: Any) -> Any:
    return _metric_names(value) if name == "metrics" else value


def resolve(preset: str | Preset | None, given: Mapping[str, Any] | None = None) -> Settings:
    """The settings of a score: the preset's options (corefio's defaults where it sets
    none), overridden by those ``given`` (only the options given explicitly: names of
    :data:`OPTION_NAMES`)."""
    given = dict(given or {})
    unknown = set(given) - set(OPTION_NAMES)
    if unknown:
        raise UsageError(f"a preset sets {', '.join(OPTION_NAMES)}, not {', '.join(sorted(unknown))}")
    chosen = get_preset(preset) if isinstance(preset, str) else preset
    options = {**DEFAULTS, **(chosen.options if chosen is not None else {}), **given}
    anaphora = chosen.anaphora if chosen is not None else None
    if anaphora is not None and "keep_singletons" in given:
        anaphora = replace(anaphora, keep_singletons=bool(given["keep_singletons"]))
    if anaphora is not None:
        anaphora = following(anaphora, options)
    return Settings(options, chosen, anaphora)


def following(anaphora: AnaphoraSettings, options: Mapping[str, Any]) -> AnaphoraSettings:
    """``anaphora`` with corefud-scorer's MOR and zero score (``scorer="corefud"``) on the
    ordinary scorer's options (``options``: matching, singletons, zeros), as corefud-scorer
    computes every number of a run with one set of options; the UA scorer's settings
    unchanged."""
    if anaphora.scorer != "corefud":
        return anaphora
    return replace(anaphora, match=options["match"], zero_match=options["zero_match"],
                   keep_zeros=bool(options["keep_zeros"]), keep_singletons=bool(options["keep_singletons"]))


def scoring_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of :func:`corefio.score` for these settings (``metrics``
    included)."""
    options = dict(settings.options)
    options["metrics"] = list(options["metrics"])
    return options


def chain_options(settings: Settings) -> dict[str, Any]:
    """The options of :class:`~.engine.Options` (agreement's pairwise table): matching,
    singletons, zeros and repeated spans."""
    from ..model.zeros import zero_mode

    o = settings.options
    return {"match": o["match"], "keep_singletons": o["keep_singletons"],
            "zeros": zero_mode(o["keep_zeros"], o["zero_match"]), "repeats": o["repeats"]}


def accepting_preset(score: Callable[..., Any]) -> Callable[..., Any]:
    """Let :func:`corefio.score` take ``preset=NAME``: the preset's options fill in those
    the call does not give (the call's own win, whatever their value); the result's
    ``options["settings"]`` is the :class:`Settings` used."""
    signature = inspect.signature(score)

    @functools.wraps(score)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        name = bound.arguments.pop("preset", None)
        if name is None:
            return score(*args, **kwargs)
        given = {k: v for k, v in bound.arguments.items() if k in OPTION_NAMES}
        settings = resolve(name, given)
        arguments = {k: v for k, v in bound.arguments.items() if k not in OPTION_NAMES}
        result = score(**arguments, **scoring_options(settings))
        result.options["settings"] = settings
        return result

    return wrapper


def comparable(metrics: Iterable[str]) -> list[str]:
    """The metrics of ``metrics`` that ``compare`` can resample (their corpus score sums
    document counts, and the CoNLL mean)."""
    from .registry import REGISTRY

    names = _metric_names(list(metrics))
    return [m for m in names if m != "mentions" and (REGISTRY[m].corpus == "sum" or m == "conll")]


__all__ = ["DEFAULTS", "OPTION_NAMES", "PRESETS", "Preset", "Settings", "accepting_preset", "all_presets",
           "chain_options", "comparable", "following", "get_preset", "preset_help", "resolve", "scoring_options"]


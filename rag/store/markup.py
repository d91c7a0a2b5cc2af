"""Abstracts' LaTeX and Markdown rendered for people, with a map back to the stored text.

`18\\times` becomes 18×, `$\\alpha$` α, `\\textbf{X}` **X**, `\\%` %, `---` —. Quotes stay the
stored text (the verbatim check reads those); `Rendered.source_span` maps a span of the rendered
text back to the characters it came from.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

SYMBOLS = {
    "times": "×", "cdot": "·", "pm": "±", "mp": "∓", "leq": "≤", "le": "≤", "geq": "≥",
    "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "sim": "∼", "simeq": "≃", "equiv": "≡",
    "infty": "∞", "to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒",
    "leftrightarrow": "↔", "mapsto": "↦", "in": "∈", "notin": "∉", "subset": "⊂",
    "subseteq": "⊆", "cup": "∪", "cap": "∩", "forall": "∀", "exists": "∃", "partial": "∂",
    "nabla": "∇", "sum": "∑", "prod": "∏", "int": "∫", "sqrt": "√", "ell": "ℓ", "log": "log",
    "exp": "exp", "min": "min", "max": "max", "arg": "arg", "ldots": "…", "dots": "…",
    "cdots": "⋯", "propto": "∝", "circ": "∘", "star": "⋆", "dagger": "†", "top": "⊤",
    "perp": "⊥", "neg": "¬", "land": "∧", "lor": "∨", "langle": "⟨", "rangle": "⟩",
    "mid": "|", "vert": "|", "|": "‖", "%": "%", "_": "_", "&": "&", "#": "#", "$": "$",
    "{": "{", "}": "}", ",": "\u2009", ";": " ", ":": " ", "!": "", " ": " ", "quad": " ",
    "qquad": " ", "textbackslash": "\\", "downarrow": "↓", "uparrow": "↑", "Downarrow": "⇓",
    "Uparrow": "⇑", "Leftrightarrow": "⇔", "iff": "⟺", "Vert": "‖", "lVert": "‖",
    "rVert": "‖", "lvert": "|", "rvert": "|", "ll": "≪", "gg": "≫", "gtrsim": "≳",
    "lesssim": "≲", "leqslant": "≤", "geqslant": "≥", "prec": "≺", "succ": "≻", "preceq": "⪯",
    "succeq": "⪰", "supset": "⊃", "supseteq": "⊇", "setminus": "∖", "emptyset": "∅",
    "varnothing": "∅", "ast": "∗", "bullet": "•", "prime": "′", "wedge": "∧", "vee": "∨",
    "oplus": "⊕", "otimes": "⊗", "odot": "⊙", "ln": "ln", "lim": "lim", "sup": "sup",
    "inf": "inf", "det": "det", "textemdash": "—", "textendash": "–", "textasciitilde": "~",
    "checkmark": "✓", "texttimes": "×", "asymp": "≍", "Pr": "Pr", "lceil": "⌈", "rceil": "⌉",
    "lfloor": "⌊", "rfloor": "⌋", "textperthousand": "‰",
    # Authors' shorthand macros, defined the same way in most papers.
    "eg": "e.g.", "ie": "i.e.", "etal": "et al.", "wrt": "w.r.t.", "vs": "vs.", "etc": "etc.",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ",
    "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}  # fmt: skip
# Commands whose braced argument is shown with Markdown emphasis, or as it is.
_BOLD = {"textbf", "mathbf", "boldsymbol", "bm"}
_ITALIC = {"textit", "emph", "mathit", "textsl"}
_PLAIN = {
    "text", "mathrm", "texttt", "textrm", "textsf", "mathsf", "mathcal", "mathbb", "mathtt",
    "operatorname", "mathscr", "mathfrak", "textsc", "hat", "bar", "tilde", "vec", "widehat",
    "widetilde", "overline", "underline", "textnormal", "mbox", "url", "footnote", "mathord",
}  # fmt: skip
# A fraction's two arguments are shown as "a/b".
_FRACTION = {"frac", "tfrac", "dfrac"}
# Commands whose (first) braced argument is not text: a citation key, a colour, a link target
# (`\href{url}{text}` and `\textcolor{blue}{text}` show their second argument).
_CITATION = {"cite", "citep", "citet", "cref", "Cref", "ref", "eqref", "label"}
_HIDDEN_ARG = _CITATION | {"color", "textcolor", "href", "vspace", "hspace"}
# Sizing, spacing and old-style font switches: they change how text looks, not what it says.
_SILENT = {
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl",
    "biggr", "bf", "em", "it", "rm", "sf", "tt", "small", "large", "Large", "tiny",
    "footnotesize", "normalsize", "displaystyle", "textstyle", "limits", "noindent", "sc",
}  # fmt: skip
_ACCENTS = {
    "'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303",
}  # fmt: skip
_TOKEN = re.compile(
    # "11$^{\circ}$": degrees, not a composition.
    r"(?P<degree>\^\s*\{?\s*\\circ\b\s*\}?)"
    r"|\\(?P<accent>['`\"^~])\{?(?P<letter>[A-Za-z])\}?"
    # The cedilla takes a braced or spaced letter: "\circ" is a command, not "\c" on "i".
    r"|\\c(?:\{(?P<cedilla>[A-Za-z])\}|\s(?P<spaced>[A-Za-z]))"
    # "\\%", "\\downarrow": a backslash doubled by the abstract's own escaping.
    r"|\\\\?(?P<cmd>[A-Za-z]+|[%_&#${},;:!| ()\[\]*<>])"
    # Not a Markdown table's rule row ("|---|---|"), which the CLI prints as it is.
    r"|(?P<dash>(?<!\|)---(?!\|)|(?<![|-])--(?![|-]))"
    # "$x_0$", "$10^{-3}$": sub- and superscripts, shown as Unicode where it has them.
    r"|(?P<script>[_^])(?:\{(?P<scripted>[0-9a-z+\-=()]{1,8})\}|(?P<one>[0-9a-z+\-=()]))"
    r"|(?P<dollar>\$)"
    r"|(?P<brace>[{}])"
)


_SUB = dict(
    zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True)
)
_SUP = dict(
    zip(
        "0123456789+-=()abcdefghijklmnoprstuvwxyz",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ",
        strict=True,
    )
)
# Markdown emphasis markers: "***x***", "**x**", "*x*" and "_x_" (not "snake_case").
_EMPHASIS = re.compile(
    r"\*{2,3}(?=\S)|(?<=\S)\*{2,3}|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])"
    r"|(?<![\w_])_(?=[^\s_])|(?<=[^\s_])_(?![\w_])"
)


@dataclass
class Rendered:
    """Rendered text and, per rendered character, the index of the stored character it shows."""

    text: str
    origin: list[int] = field(default_factory=list)

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """The stored text's span behind rendered[start:end]."""
        if not self.origin or start >= end:
            return (0, 0)
        return self.origin[start], self.origin[min(end, len(self.origin)) - 1] + 1


def render(text: str, markdown: bool = True, math: bool = False) -> Rendered:
    """LaTeX commands, math delimiters and dashes rendered as Unicode (Markdown emphasis kept).

    With `markdown=False` emphasis becomes plain text (terminals), `*x*`/`**x**` included;
    `math`: the text starts inside math (a fraction's argument).
    """
    out: list[str] = []
    origin: list[int] = []
    # Closing text for each open brace: '**' for \\textbf{, '' for a plain group.
    closers: list[str] = []
    in_math = math
    pos = 0

    def emit(s: str, at: int) -> None:
        for ch in s:
            out.append(ch)
            origin.append(at)

    def emit_group(start: int, end: int) -> None:
        """The rendered text of text[start:end], a fraction's argument, bracketed when it is
        more than one term ("(a+b)/2")."""
        inner = render(text[start:end], markdown, math=True)
        wrap = len(inner.text) > 1 and any(c in inner.text for c in " +-−·×/")
        if wrap:
            emit("(", start)
        out.extend(inner.text)
        origin.extend(start + o for o in inner.origin)
        if wrap:
            emit(")", end)

    while (m := _TOKEN.search(text, pos)) is not None:
        for i in range(pos, m.start()):
            emit(text[i], i)
        pos = m.end()
        at = m.start()
        if m["degree"]:
            emit("°", at)
        elif m["accent"]:
            emit(unicodedata.normalize("NFC", m["letter"] + _ACCENTS[m["accent"]]), at)
        elif m["cedilla"] or m["spaced"]:
            emit(unicodedata.normalize("NFC", (m["cedilla"] or m["spaced"]) + "\u0327"), at)
        elif m["cmd"] is not None:
            cmd = m["cmd"]
            has_arg = text.startswith("{", pos)
            if cmd in "()[]":
                # "\\(x\\)": math delimiters, as "$".
                in_math = cmd in "(["
            elif cmd in "*<>":
                # A Markdown escape: kept for a Markdown view, the character for a terminal.
                emit("\\" + cmd if markdown else cmd, at)
            elif cmd in _FRACTION and has_arg and (num := _group_end(text, pos)) > 0:
                den = _group_end(text, num) if text.startswith("{", num) else -1
                if den < 0:
                    emit(m.group(), at)
                    continue
                emit_group(pos + 1, num - 1)
                emit("/", num - 1)
                emit_group(num + 1, den - 1)
                pos = den
            elif cmd in _HIDDEN_ARG and has_arg and (end := _group_end(text, pos)) > 0:
                pos = end
                if cmd in _CITATION and out and out[-1] == " ":
                    # "as shown \\cite{x}." reads "as shown."
                    out.pop()
                    origin.pop()
            elif cmd in _SILENT:
                if text.startswith(" ", pos):
                    pos += 1
            elif cmd in _BOLD | _ITALIC | _PLAIN and has_arg:
                mark = "**" if cmd in _BOLD else "*" if cmd in _ITALIC else ""
                mark = mark if markdown else ""
                emit(mark, at)
                closers.append(mark)
                pos += 1
            elif cmd in SYMBOLS:
                emit(SYMBOLS[cmd], at)
                # "\times 2": the space only ended the command name.
                if cmd.isalpha() and text.startswith(" ", pos) and in_math:
                    pos += 1
            elif cmd in _BOLD | _ITALIC | _PLAIN:
                continue
            else:
                emit(m.group(), at)
        elif m["script"]:
            chars = m["scripted"] or m["one"]
            table = _SUB if m["script"] == "_" else _SUP
            if in_math and all(c in table for c in chars):
                emit("".join(table[c] for c in chars), at)
            else:
                # "snake_case" outside math, or a letter Unicode has no script form of.
                for i in range(m.start(), m.end()):
                    emit(text[i], i)
        elif m["dash"]:
            emit("—" if m["dash"] == "---" else "–", at)
        elif m["dollar"]:
            in_math = not in_math
        elif m["brace"] == "{":
            closers.append("")
        else:
            if closers:
                emit(closers.pop(), at)
            else:
                emit("}", at)
    for i in range(pos, len(text)):
        emit(text[i], i)
    rendered = Rendered("".join(out), origin)
    if not markdown:
        rendered = _drop(rendered, _EMPHASIS)
    return rendered


def _group_end(text: str, start: int) -> int:
    """The index after the brace closing the group opened at text[start]; -1 if it never
    closes."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{" and (i == 0 or text[i - 1] != "\\"):
            depth += 1
        elif text[i] == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def _drop(r: Rendered, pattern: re.Pattern[str]) -> Rendered:
    keep = [True] * len(r.text)
    for m in pattern.finditer(r.text):
        for i in range(m.start(), m.end()):
            keep[i] = False
    return Rendered(
        "".join(c for c, k in zip(r.text, keep, strict=True) if k),
        [o for o, k in zip(r.origin, keep, strict=True) if k],
    )


def readable(text: str) -> str:
    """Text for a Markdown view (answers, source cards, the Corpus table)."""
    return render(text).text


def bold(text: str) -> str:
    """A title in Markdown bold, its own emphasis dropped so that markers never nest."""
    return f"**{plain(text)}**"


def plain(text: str) -> str:
    """Text for a terminal: LaTeX rendered, Markdown emphasis dropped."""
    return render(text, markdown=False).text

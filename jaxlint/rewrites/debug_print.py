"""JAX201's rewrite: `print("loss %.3f" % loss, x)` → `jax.debug.print("loss {:.3f} {x!s}", ...)`.

The rewrite, jitted, prints the text the original prints under `jax.disable_jit()`, or it is
refused. What makes that exact (measured on jax 0.10.2, tests/test_print_rewrite.py):

- jax.debug.print hands its callback `jax.Array`s and formats them with `str.format`, so a field
  behaves as `format(array, spec)`. For a 0-d float array `format(a, "")` is `0.10000000149011612`
  while `print(a)` shows `str(a)`, `0.1`: a value print or `%s` turns into text is a `{!s}` field.
- `"%.3f" % a` and `"{:.3f}".format(a)` agree on every 0-d float, int and bool array; `%d` does
  not (`{:d}` rejects floats, `%d` truncates them), nor do `%x`/`%o`/`%c`: those are refused.
- Text made at trace time from a traced value (`str(x)`, `"%s" % x`, `f"{x}"`, `"{}".format(x)`,
  `format(x, ".3f")`, `"a" + str(x)`) is the tracer's text: it becomes fields or is refused.
- Static values are concrete at trace time, so their text is made there (`str(x.shape)`), exactly
  as print makes it; passed as values, jax.debug.print would print a shape tuple as arrays.
- jax.debug.print looks only at the template's first literal chunk to decide whether it has
  fields: a template starting with an escaped brace is printed unformatted. Such leading text is
  passed as a string argument instead.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from jaxlint.engine.edits import Edit, ImportSpec, Refusal
from jaxlint.engine.requests import Builtin, ValueQueries
from jaxlint.rules._printed_text import STATIC_ONLY, is_text, makes_text, string_value

# jax.debug.print's own keyword parameters: a value of that name is passed positionally.
DEBUG_PRINT_PARAMETERS = frozenset(
    {"fmt", "ordered", "partitioned", "skip_format_check", "_use_logging"}
)
# `%[(key)][flags][width][.precision][length]type`, as printf-style formatting reads it.
PERCENT_SPEC = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?"
    r"(?:\.(?P<precision>\*|\d*))?(?P<length>[hlL])?(?P<type>.?)",
    re.DOTALL,
)
FLOAT_TYPES = frozenset("eEfFgG")
# keywords of jax.debug.print itself, kept as they are by the fix
OWN_KEYWORDS = frozenset({"ordered", "partitioned"})
TEXT_CONVERSIONS = {"str": "s", "repr": "r", "ascii": "a"}


@dataclass(frozen=True)
class _Text:
    """Literal text of the printed line."""

    text: str


@dataclass(frozen=True)
class _Value:
    """One value's text: `format(conversion(expression), spec)`, or printf-style `%percent`."""

    expression: cst.BaseExpression
    conversion: str = "s"  # "" (as in `f"{x}"`: format semantics), "s", "r" or "a"
    spec: str = ""
    percent: str | None = None  # a static value's printf spec (`"%d"`): made exactly so


_Piece = _Text | _Value


def debug_print_edit(
    call: cst.Call, verify_target: str | None, values: ValueQueries, *, ordered: bool = False
) -> Edit | Refusal:
    """The edit turning a builtin print call into jax.debug.print, or why it cannot.

    `ordered` adds `ordered=True`: without it XLA may run two debug prints of one program in
    either order (measured: "after" printed before "before").
    """
    separator = " "
    ending = ""  # what `end=` prints before the newline jax.debug.print always ends with
    positional: list[cst.BaseExpression] = []
    for argument in call.args:
        if argument.star:
            return Refusal(f"print({argument.star}...) cannot be turned into a format string")
        if argument.keyword is None:
            positional.append(argument.value)
            continue
        name = argument.keyword.value
        literal = string_value(argument.value)
        none = _is_none(argument.value)
        if name == "sep" and (literal is not None or none):
            separator = " " if none or literal is None else literal
        elif name == "end" and (none or literal is not None and literal.endswith("\n")):
            ending = "" if none or literal is None else literal[:-1]
        elif name == "flush" or name == "file" and none:
            continue
        elif name == "end":
            return Refusal("print(..., end=...) without a newline: jax.debug.print always ends one")
        elif name == "sep":
            return Refusal("print(..., sep=...) with a separator that is not a string literal")
        else:
            return Refusal(f"print(..., {name}=...) has no jax.debug.print equivalent")

    pieces: list[_Piece] = []
    for number, value in enumerate(positional):
        if number:
            pieces.append(_Text(separator))
        found = _pieces(value, values)
        if isinstance(found, Refusal):
            return found
        pieces.extend(found)
    if ending:
        pieces.append(_Text(ending))
    if not any(isinstance(p, _Value) and values.traced(p.expression) for p in pieces):
        return Refusal(STATIC_ONLY)
    arguments = _render(pieces, values)
    if isinstance(arguments, Refusal):
        return arguments
    if ordered:
        arguments.append(_keyword("ordered", cst.Name("True")))
    replacement = cst.Call(
        func=cst.Attribute(
            value=cst.Attribute(value=cst.Name("jax"), attr=cst.Name("debug")),
            attr=cst.Name("print"),
        ),
        args=arguments,
    )
    return Edit(
        replacements={call: replacement},
        description="print → jax.debug.print (prints on every call, with values)",
        imports=(ImportSpec("jax"),),
        verify_target=verify_target,
        rewrites_prints=True,
    )


def template_edit(call: cst.Call, text: cst.BaseExpression, values: ValueQueries) -> Edit | Refusal:
    """JAX206's rewrite: `jax.debug.print(f"...")` → a template and the values as arguments."""
    rest = call.args[1:]
    if any(a.keyword is None or a.keyword.value not in OWN_KEYWORDS for a in rest):
        return Refusal(
            "jax.debug.print also gets other arguments, which the f-string's own braces "
            "would mix with: rewrite the template by hand"
        )
    arguments = template_arguments(text, values)
    if isinstance(arguments, Refusal):
        return arguments
    return Edit(
        replacements={call: call.with_changes(args=[*arguments, *rest])},
        description="f-string → jax.debug.print template with the values as arguments",
    )


def template_arguments(text: cst.BaseExpression, values: ValueQueries) -> list[cst.Arg] | Refusal:
    """jax.debug.print's template and arguments printing what the text expression `text` (an
    f-string, `"..." % x`, `"...".format(x)`) would make from values (JAX206)."""
    if isinstance(text, cst.FormattedString):
        # `{x=}` of a computed array shows `x=Array(0.1, dtype=float32)` run eagerly (repr):
        # `{x!r}` prints that (a `{p=}` of a parameter is refused, see _fstring_pieces)
        pieces: list[_Piece] | Refusal | None = _fstring_pieces(text, values)
    else:
        pieces = _text_pieces(text, values)
    if pieces is None:
        return Refusal(f"`{_short_code(text)}` is not text jaxlint can take apart")
    if isinstance(pieces, Refusal):
        return pieces
    return _render(pieces, values)


# -- what the printed text is made of ------------------------------------------------------------


def _pieces(value: cst.BaseExpression, values: ValueQueries) -> list[_Piece] | Refusal:
    """The text `str(value)` is, split into literal text and values (fields or static text)."""
    literal = string_value(value)
    if literal is not None:
        return [_Text(literal)]
    static = not values.mentions_traced(value)
    found = _text_pieces(value, values)
    if found is not None and not (static and isinstance(found, Refusal)):
        return found
    if static or values.traced(value):
        return [_Value(value)]
    if values.text(value):
        return _formats_tracer(value)
    return Refusal(
        f"`{_short_code(value)}` is computed from traced values at trace time (a container "
        "holding arrays, a type, ...): printed then it shows tracers, and jax.debug.print cannot "
        "be given it exactly"
    )


def _text_pieces(value: cst.BaseExpression, values: ValueQueries) -> list[_Piece] | Refusal | None:
    """The pieces of text built at trace time (`"a %s" % x`, `f"{x}"`, `str(x)`...), else None."""
    if isinstance(value, cst.FormattedString):
        return _fstring_pieces(value, values)
    if isinstance(value, cst.ConcatenatedString):  # `"loss " f"{loss:.3f}"`
        left = _pieces(value.left, values)
        if isinstance(left, Refusal):
            return left
        right = _pieces(value.right, values)
        return right if isinstance(right, Refusal) else left + right
    if isinstance(value, cst.BinaryOperation):
        if isinstance(value.operator, cst.Add) and makes_text(value, values.builtin):
            if not (is_text(value.left, values.builtin) and is_text(value.right, values.builtin)):
                return _formats_tracer(value)  # `str(x) + n`: is `n` a str? (else a TypeError)
            left = _pieces(value.left, values)
            if isinstance(left, Refusal):
                return left
            right = _pieces(value.right, values)
            if isinstance(right, Refusal):
                return right
            return left + right
        template = string_value(value.left)
        if isinstance(value.operator, cst.Modulo) and template is not None:
            return _percent_pieces(template, value.right, values)
    if isinstance(value, cst.Call) and makes_text(value, values.builtin):
        return _call_pieces(value, values)
    return None


def _call_pieces(call: cst.Call, values: ValueQueries) -> list[_Piece] | Refusal:
    """`str(x)`, `repr(x)`, `format(x, ".3f")` or `"... {} ...".format(x)` of a traced value."""
    if any(a.star for a in call.args):
        return _formats_tracer(call)
    positional = [a.value for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    name = values.builtin(call.func)
    if name in TEXT_CONVERSIONS and len(positional) == 1 and not keywords:
        (inner,) = positional
        if values.traced(inner):
            return [_Value(inner, TEXT_CONVERSIONS[name])]
        if name == "str":  # str() of text is that text
            return _pieces(inner, values)
    if name == "format" and not keywords and len(positional) in (1, 2):
        spec = string_value(positional[1]) if len(positional) == 2 else ""
        if spec is not None and values.traced(positional[0]):
            if "{" in spec or "}" in spec:
                return Refusal("a format spec with braces cannot be a jax.debug.print field")
            return [_Value(positional[0], "", spec)]
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "format":
        template = string_value(func.value)  # makes_text: a literal
        if template is not None:
            return _format_method_pieces(template, positional, keywords, values)
    return _formats_tracer(call)


def _fstring_pieces(value: cst.FormattedString, values: ValueQueries) -> list[_Piece] | Refusal:
    """The f-string's text and fields; a `{x=}` field with no conversion or spec converts with
    `!r`, as the f-string formats it. A `{p=}` of a parameter, which may be a Python number
    eagerly, is refused (verification's inputs may all be arrays, so it is not left to them)."""
    prefix = value.prefix.lower().replace("f", "")
    if "b" in prefix:
        return Refusal("bytes f-strings cannot be printed by jax.debug.print")
    quote = value.start[len(value.prefix) :]
    pieces: list[_Piece] = []
    for part in value.parts:
        if isinstance(part, cst.FormattedStringText):
            # An f-string's text escapes braces as `{{`/`}}`; what it prints has single ones.
            text = ast.literal_eval(f"{prefix}{quote}{part.value}{quote}")
            pieces.append(_Text(text.replace("{{", "{").replace("}}", "}")))
            continue
        assert isinstance(part, cst.FormattedStringExpression)  # an f-string's other part
        spec = ""
        if part.format_spec:
            texts = [p for p in part.format_spec if isinstance(p, cst.FormattedStringText)]
            if len(texts) != len(part.format_spec):
                return Refusal("nested expressions in an f-string format spec")
            spec = "".join(p.value for p in texts)
        conversion = part.conversion or ""
        if part.equal is not None:
            # `{loss = }` prints its own source text, then repr(loss) (format(loss, spec) when a
            # spec is given and no conversion).
            code = cst.Module([]).code_for_node(
                part.with_changes(conversion=None, format_spec=None)
            )
            pieces.append(_Text(code[1:-1]))
            if not conversion and not spec and values.parameter(part.expression):
                # repr of a Python number (`0.1`) is not repr of the array jit makes of it
                name = _short_code(part.expression)
                return Refusal(
                    f"`{{{name}=}}` shows repr({name}): `0.1` for a Python number, "
                    f"`Array(0.1, dtype=float32)` for an array, and `{name}` may be either; "
                    f"write `{name}={{{name}!r}}` or `{name}={{{name}}}`"
                )
            conversion = conversion or ("" if spec else "r")
        found = _field_pieces(part.expression, conversion, spec, values)
        if isinstance(found, Refusal):
            return found
        pieces.extend(found)
    return pieces


def _format_method_pieces(
    template: str,
    positional: list[cst.BaseExpression],
    keywords: dict[str, cst.BaseExpression],
    values: ValueQueries,
) -> list[_Piece] | Refusal:
    """`"step {} loss {:.3f}".format(step, loss)`, field by field."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return Refusal("the `.format` template does not parse")
    pieces: list[_Piece] = []
    automatic: int | None = None
    manual = False
    for text, field, spec, conversion in parsed:
        if text:
            pieces.append(_Text(text))
        if field is None:
            continue
        if "{" in (spec or ""):
            return Refusal("nested fields in a `.format` spec")
        if "." in field or "[" in field:
            return Refusal(f"`.format` field `{{{field}}}` reads an attribute or item")
        if conversion not in (None, "s", "r", "a"):
            return Refusal(f"`.format` conversion `!{conversion}` is not valid")
        if field == "":
            if manual:
                return Refusal("`.format` mixes automatic and manual field numbering")
            automatic = 0 if automatic is None else automatic + 1
            field = str(automatic)
        elif field.isdigit():
            if automatic is not None:
                return Refusal("`.format` mixes automatic and manual field numbering")
            manual = True
        if field.isdigit():
            if int(field) >= len(positional):
                return Refusal("`.format` has fewer arguments than fields")
            argument = positional[int(field)]
        elif field in keywords:
            argument = keywords[field]
        else:
            return Refusal(f"`.format` has no argument `{field}`")
        found = _field_pieces(argument, conversion or "", spec or "", values)
        if isinstance(found, Refusal):
            return found
        pieces.extend(found)
    return pieces


def _percent_pieces(
    template: str, right: cst.BaseExpression, values: ValueQueries
) -> list[_Piece] | Refusal:
    """`"loss %.3f after %d steps" % (loss, n)`: printf specs become format fields."""
    if isinstance(right, (cst.Dict, cst.DictComp)):
        return Refusal("`%` with a mapping (`%(name)s`) cannot be translated to a format string")
    if isinstance(right, cst.Tuple):
        if any(isinstance(e, cst.StarredElement) for e in right.elements):
            return _formats_tracer(right)
        arguments = [e.value for e in right.elements]
    elif values.traced(right) and not values.array(right):
        return Refusal("`%` of a traced value that may be a tuple: write the arguments as a tuple")
    else:
        arguments = [right]
    pieces: list[_Piece] = []
    position = 0
    used = 0
    for match in PERCENT_SPEC.finditer(template):
        pieces.append(_Text(template[position : match.start()]))
        position = match.end()
        if match["type"] == "%":
            if match.group(0) != "%%":
                return Refusal(f"`{match.group(0)}` cannot be translated to a format spec")
            pieces.append(_Text("%"))
            continue
        if match["key"] is not None or "*" in (match["width"] or "") + (match["precision"] or ""):
            return Refusal("`%(name)s` and `*` widths cannot be translated to a format string")
        if used >= len(arguments):
            return Refusal("`%` template has more specs than arguments")
        found = _percent_piece(match, arguments[used], values)
        used += 1
        if isinstance(found, Refusal):
            return found
        pieces.extend(found)
    pieces.append(_Text(template[position:]))
    if used != len(arguments):
        return Refusal("`%` template has fewer specs than arguments")
    return [p for p in pieces if not (isinstance(p, _Text) and not p.text)]


def _percent_piece(
    match: re.Match[str], argument: cst.BaseExpression, values: ValueQueries
) -> list[_Piece] | Refusal:
    spec = match.group(0)
    if not values.mentions_traced(argument):
        return [_Value(argument, percent=spec)]  # static: made by `%` itself, at trace time
    kind, flags, width = match["type"], match["flags"], match["width"] or ""
    precision = "" if match["precision"] is None else "." + (match["precision"] or "0")
    if match["length"] or not kind:
        return Refusal(f"`{spec}` cannot be translated to a format spec")
    if not values.traced(argument):
        if spec == "%s":
            return _pieces(argument, values)
        return _formats_tracer(argument)
    if kind in TEXT_CONVERSIONS.values():
        if set(flags) - {"-"}:
            return Refusal(f"`{spec}`: flags other than `-` on text")
        align = ("<" if "-" in flags else ">") if width else ""
        return [_Value(argument, kind, f"{align}{width}{precision}")]
    if kind in FLOAT_TYPES:
        # `%` takes float(x), which rejects complex values; `=` alignment and zero padding are
        # the spec forms that reject them too, and pad reals exactly as `%` does.
        zero = "0" in flags and "-" not in flags
        if width and not zero:
            return Refusal(
                f"`{spec}`: a width without the `0` flag has no format spec that pads the same "
                "and rejects complex values as `%` does"
            )
        sign = "+" if "+" in flags else " " if " " in flags else ""
        alternate = "#" if "#" in flags else ""
        if zero:
            return [_Value(argument, "", f"{sign}{alternate}0{width}{precision}{kind}")]
        return [_Value(argument, "", f"={sign}{alternate}{precision}{kind}")]
    if kind in "diu":
        return Refusal(
            f"`{spec}` of a traced value: `%d` truncates a float, `{{:d}}` rejects one, and the "
            "dtype is not known here"
        )
    return Refusal(f"`{spec}` of a traced value has no exact format-string equivalent")


def _field_pieces(
    expression: cst.BaseExpression, conversion: str, spec: str, values: ValueQueries
) -> list[_Piece] | Refusal:
    """An f-string or `.format` field: `format(conversion(expression), spec)`."""
    if "{" in spec or "}" in spec:
        return Refusal("a format spec with braces cannot be a jax.debug.print field")
    static = not values.mentions_traced(expression)
    if conversion in ("", "s") and not spec:  # the field is the text itself
        found = _text_pieces(expression, values)
        if found is not None and not (static and isinstance(found, Refusal)):
            return found
    if static or values.traced(expression) and not makes_text(expression, values.builtin):
        return [_Value(expression, conversion, spec)]
    return _formats_tracer(expression)


def _formats_tracer(expression: cst.BaseExpression) -> Refusal:
    return Refusal(
        f"`{_short_code(expression)}` makes text from a traced value at trace time (it would "
        "print the tracer) and cannot be turned into format fields"
    )


def _short_code(expression: cst.BaseExpression) -> str:
    code = cst.Module([]).code_for_node(expression)
    return code if len(code) <= 40 else code[:37] + "..."


# -- the jax.debug.print call --------------------------------------------------------------------


def _render(pieces: list[_Piece], values: ValueQueries) -> list[cst.Arg] | Refusal:
    """The template and arguments of jax.debug.print for these pieces."""
    template: list[str] = []
    positional: list[cst.Arg] = []
    keywords: dict[str, cst.Arg] = {}
    for piece in pieces:
        if isinstance(piece, _Text):
            template.append(_escape(piece.text))
            continue
        expression = piece.expression
        field = (f"!{piece.conversion}" if piece.conversion else "") + (
            f":{piece.spec}" if piece.spec else ""
        )
        if not values.traced(expression):
            baked = _literal_text(piece)
            if baked is not None:
                template.append(_escape(baked))
                continue
            template.append("{}")
            positional.append(cst.Arg(_static_text(piece, values.builtin)))
            continue
        problem = _field_problem(expression, values)
        if problem is None and values.text(expression):
            problem = "a value holding text made at trace time from a traced value"
        if problem is not None:
            return Refusal(problem)
        if isinstance(expression, cst.Name) and expression.value not in DEBUG_PRINT_PARAMETERS:
            template.append(f"{{{expression.value}{field}}}")
            keywords.setdefault(expression.value, _keyword(expression.value))
        else:
            template.append(f"{{{field}}}")
            positional.append(cst.Arg(expression))
    text = "".join(template)
    first_text, first_field, _, _ = next(iter(string.Formatter().parse(text)))
    if first_field is None:
        # jax.debug.print would see no fields and print the template as it is.
        leading = len(_escape(first_text))
        text = "{}" + text[leading:]
        positional.insert(0, cst.Arg(cst.SimpleString(_quote(first_text))))
    return [cst.Arg(cst.SimpleString(_quote(text))), *positional, *keywords.values()]


def _field_problem(expression: cst.BaseExpression, values: ValueQueries) -> str | None:
    """Why a traced expression cannot be a field printing what print prints, if it cannot."""
    if isinstance(expression, (cst.Set, cst.Dict, cst.SetComp, cst.DictComp)):
        return "a dict or set holding traced values: jax.debug.print reorders or rejects it"
    if isinstance(expression, (cst.Tuple, cst.List)):
        for element in expression.elements:
            if isinstance(element, cst.StarredElement):
                return "a starred element in a printed tuple or list"
            if not values.traced(element.value):
                return (
                    "a tuple or list mixing static and traced values: jax.debug.print would "
                    "print its static entries as arrays"
                )
            problem = _field_problem(element.value, values)
            if problem is not None:
                return problem
    return None


def _literal_text(piece: _Value) -> str | None:
    """The text of a literal number or string (`print("epoch", 3, x)`), made here and baked in."""
    expression = piece.expression
    if isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, cst.Minus):
        expression = expression.expression
        sign = "-"
    else:
        sign = ""
    if not isinstance(expression, (cst.Integer, cst.Float, cst.SimpleString)):
        return None
    if sign and isinstance(expression, cst.SimpleString):
        return None
    value = ast.literal_eval(sign + expression.value)
    if isinstance(value, bytes):
        return None
    if piece.percent is not None:
        return piece.percent % (value,)
    convert = _CONVERSIONS.get(piece.conversion)
    return format(convert(value) if convert else value, piece.spec)


_CONVERSIONS: dict[str, Callable[[object], str]] = {"s": str, "r": repr, "a": ascii}


def _static_text(piece: _Value, builtin: Builtin) -> cst.BaseExpression:
    """A static value's text, made at trace time exactly as the original makes it."""
    expression = piece.expression
    if piece.conversion == "s" and not piece.spec and makes_text(expression, builtin):
        return expression  # already the text: `repr(x.shape)`
    if piece.percent is not None:
        element = cst.Element(expression, comma=cst.Comma())
        return cst.BinaryOperation(
            cst.SimpleString(_quote(piece.percent)), cst.Modulo(), cst.Tuple([element])
        )
    if piece.conversion in TEXT_CONVERSIONS.values():
        function = next(f for f, c in TEXT_CONVERSIONS.items() if c == piece.conversion)
        expression = cst.Call(cst.Name(function), [cst.Arg(expression)])
        if not piece.spec:
            return expression
    arguments = [cst.Arg(expression)]
    if piece.spec:
        arguments.append(cst.Arg(cst.SimpleString(_quote(piece.spec))))
    return cst.Call(cst.Name("format"), arguments)


def _keyword(name: str, value: cst.BaseExpression | None = None) -> cst.Arg:
    return cst.Arg(
        value=cst.Name(name) if value is None else value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _quote(text: str) -> str:
    """A string literal for `text`, double-quoted when that needs no escaping."""
    literal = repr(text)
    if literal.startswith("'") and '"' not in text:
        literal = '"' + literal[1:-1].replace("\\'", "'") + '"'
    return literal

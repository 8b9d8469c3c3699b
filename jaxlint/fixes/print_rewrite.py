"""JAX201's rewrite: `print(a, f"x={x:.3f}")` → `jax.debug.print("{} x={x:.3f}", a, x=x)`."""

from __future__ import annotations

import ast
from collections.abc import Callable

import libcst as cst

from jaxlint.fixes.edits import Edit, ImportSpec, Refusal


def debug_print_edit(
    call: cst.Call, verify_target: str | None, is_traced: Callable[[cst.BaseExpression], bool]
) -> Edit | Refusal:
    """The edit turning a builtin print call into jax.debug.print, or why it cannot.

    Traced values become format fields; static values (`x.shape`, a Python int) are turned into
    strings at trace time (`str(x.shape)`), as jax.debug.print would otherwise print them as
    arrays.
    """
    separator = " "
    positional: list[cst.Arg] = []
    for argument in call.args:
        if argument.star:
            return Refusal("print(*args) cannot be turned into a format string")
        if argument.keyword is None:
            positional.append(argument)
            continue
        name = argument.keyword.value
        literal = _string_value(argument.value)
        if name == "sep" and literal is not None:
            separator = literal
        elif name == "end" and literal == "\n" or name == "flush":
            continue
        else:
            return Refusal(f"print(..., {name}=...) has no jax.debug.print equivalent")

    template: list[str] = []
    call_args: list[cst.Arg] = []
    keywords: dict[str, cst.Arg] = {}
    for number, argument in enumerate(positional):
        if number:
            template.append(_escape(separator))
        value = argument.value
        literal = _string_value(value)
        if literal is not None:
            template.append(_escape(literal))
        elif isinstance(value, cst.FormattedString):
            pieces = _fstring_template(value, call_args, keywords, is_traced)
            if isinstance(pieces, Refusal):
                return pieces
            template.append(pieces)
        elif not is_traced(value):
            template.append("{}")
            call_args.append(cst.Arg(value=_static_text(value, "", "")))
        elif isinstance(value, cst.Name):
            template.append(f"{{{value.value}}}")
            keywords.setdefault(value.value, _keyword(value.value))
        else:
            template.append("{}")
            call_args.append(cst.Arg(value=value))
    replacement = cst.Call(
        func=cst.Attribute(
            value=cst.Attribute(value=cst.Name("jax"), attr=cst.Name("debug")),
            attr=cst.Name("print"),
        ),
        args=[
            cst.Arg(value=cst.SimpleString(_quote("".join(template)))),
            *call_args,
            *keywords.values(),
        ],
    )
    return Edit(
        replacements={call: replacement},
        description="print → jax.debug.print (prints on every call, with values)",
        imports=(ImportSpec("jax"),),
        verify_target=verify_target,
    )


def _fstring_template(
    value: cst.FormattedString,
    call_args: list[cst.Arg],
    keywords: dict[str, cst.Arg],
    is_traced: Callable[[cst.BaseExpression], bool],
) -> str | Refusal:
    prefix = value.prefix.lower().replace("f", "")
    if "b" in prefix:
        return Refusal("bytes f-strings cannot be printed by jax.debug.print")
    quote = value.start[len(value.prefix) :]
    out = []
    for part in value.parts:
        if isinstance(part, cst.FormattedStringText):
            # An f-string's text already escapes braces as `{{`/`}}`, as a format string must.
            out.append(ast.literal_eval(f"{prefix}{quote}{part.value}{quote}"))
            continue
        spec = ""
        if part.format_spec:
            if any(not isinstance(p, cst.FormattedStringText) for p in part.format_spec):
                return Refusal("nested expressions in an f-string format spec")
            spec = ":" + "".join(p.value for p in part.format_spec)  # type: ignore[union-attr]
        conversion = f"!{part.conversion}" if part.conversion else ""
        if part.equal is not None:
            return Refusal("self-documenting f-string fields (`{x=}`)")
        expression = part.expression
        if not is_traced(expression):
            out.append("{}")
            call_args.append(cst.Arg(value=_static_text(expression, part.conversion or "", spec)))
        elif isinstance(expression, cst.Name):
            out.append(f"{{{expression.value}{conversion}{spec}}}")
            keywords.setdefault(expression.value, _keyword(expression.value))
        else:
            out.append(f"{{{conversion}{spec}}}")
            call_args.append(cst.Arg(value=expression))
    return "".join(out)


def _static_text(expression: cst.BaseExpression, conversion: str, spec: str) -> cst.Call:
    """`str(e)`, `repr(e)` or `format(e, "spec")`: a static value's text, made at trace time."""
    if conversion in ("r", "a"):
        expression = cst.Call(
            cst.Name("repr" if conversion == "r" else "ascii"), [cst.Arg(expression)]
        )
    if spec:
        return cst.Call(
            cst.Name("format"), [cst.Arg(expression), cst.Arg(cst.SimpleString(_quote(spec[1:])))]
        )
    if (
        isinstance(expression, cst.Call)
        and isinstance(expression.func, cst.Name)
        and expression.func.value in ("repr", "ascii")
    ):
        return expression
    return cst.Call(cst.Name("str"), [cst.Arg(expression)])


def _keyword(name: str) -> cst.Arg:
    return cst.Arg(
        value=cst.Name(name),
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )


def _string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _quote(text: str) -> str:
    """A string literal for `text`, double-quoted when that needs no escaping."""
    literal = repr(text)
    if literal.startswith("'") and '"' not in text:
        literal = '"' + literal[1:-1].replace("\\'", "'") + '"'
    return literal

"""What one call of the checked code did, as plain data: all the verification child sends back.

The child (`jaxlint.verify.check`) flattens each output into leaves of NumPy data and says what
was printed and which exception was raised; jaxlint rebuilds them here, with NumPy alone and no
pickle, and judges them (`jaxlint.verify.verdict`). Every field is checked on the way in: a
reply the child got wrong, or that code in it forged, is a `ValueError`, never an object.
"""

from __future__ import annotations

import base64
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

# JAX's dtype names; 16-, 8- and 4-bit floats and 2- and 4-bit integers travel widened to a
# NumPy dtype (values unchanged) and keep their own name here.
_DTYPE_NAME = re.compile(
    r"bool|u?int(2|4|8|16|32|64)|float(16|32|64)|bfloat16|float8_\w+|float4_\w+|complex(64|128)"
)
_WIRE_DTYPES = frozenset(
    ["bool", "float16", "float32", "float64", "complex64", "complex128"]
    + [f"{sign}int{bits}" for sign in ("", "u") for bits in (8, 16, 32, 64)]
)
TRACER_TEXT = re.compile(r"Tracer\b|Traced<")  # how JAX prints a tracer
MAX_LEAVES = 4096
MAX_PRINTED = 1 << 20  # characters of printed text kept for comparison


@dataclass(frozen=True)
class Leaf:
    """One leaf of an output: an array of a JAX dtype, or a value that is no array (compared by
    a digest of its type and `repr`, which no report shows)."""

    dtype: str = ""  # JAX's name: "float32", "bfloat16", "int4"; "" for a value that is no array
    values: np.ndarray | None = None  # in a NumPy dtype that holds the values exactly
    weak: bool = False  # a Python scalar, or weakly typed: takes the dtype it meets
    digest: str = ""  # a value that is no array

    @property
    def is_array(self) -> bool:
        return self.values is not None

    @property
    def inexact(self) -> bool:
        return self.dtype.startswith(("float", "bfloat", "complex"))

    @property
    def complex(self) -> bool:
        return self.dtype.startswith("complex")

    @property
    def bits(self) -> int:
        """Bits of precision class: 16 for float16 and bfloat16, 32 for float32 and complex64."""
        if self.dtype.startswith(("float8", "float4")):
            return 8
        digits = int(re.sub(r"\D", "", self.dtype) or 0)
        return digits // 2 if self.complex else digits


@dataclass(frozen=True)
class Output:
    """A returned value: its pytree structure as JAX prints it, and its leaves in order."""

    structure: str
    leaves: tuple[Leaf, ...]


@dataclass(frozen=True)
class Call:
    """What one call did: its output and printed text, or the class of what it raised."""

    output: Output | None = None
    printed: str = ""
    raised: str = ""  # the exception's class name; "" when the call returned
    too_slow: bool = False  # the original ran past its time for one call
    stacks_nothing: bool = False  # `jnp.stack([])`: a loop that ran zero times stacked nothing
    numpy_only: bool = False  # an error of the NumPy reference `.at[]` does not raise

    @property
    def returned(self) -> bool:
        return self.output is not None


# ---------------------------------------------------------------- to the wire (either side)


def leaf_to_wire(dtype: str, values: np.ndarray, weak: bool) -> dict[str, Any]:
    """An array leaf; `values` already in one of the wire's NumPy dtypes."""
    return {
        "dtype": dtype,
        "wire": values.dtype.name,
        "shape": list(values.shape),
        "data": base64.b64encode(values.tobytes(order="C")).decode("ascii"),
        "weak": weak,
    }


def call_to_wire(call: Call) -> dict[str, Any]:
    """A call as JSON-able data (the child builds the same dicts from JAX values directly)."""
    wire: dict[str, Any] = {"printed": call.printed, "raised": call.raised}
    wire.update(too_slow=call.too_slow, stacks_nothing=call.stacks_nothing)
    wire["numpy_only"] = call.numpy_only
    if call.output is not None:
        wire["output"] = output_to_wire(call.output)
    return wire


def output_to_wire(output: Output) -> dict[str, Any]:
    leaves = []
    for leaf in output.leaves:
        if leaf.values is None:
            leaves.append({"digest": leaf.digest})
        else:
            leaves.append(leaf_to_wire(leaf.dtype, leaf.values, leaf.weak))
    return {"structure": output.structure, "leaves": leaves}


# ---------------------------------------------------------------- from the wire (jaxlint's side)


def call_from_wire(data: Any) -> Call:
    """A `Call` from the child's reply; ValueError when anything in it is malformed."""
    _require(isinstance(data, dict), "a call that is not an object")
    printed, raised = data.get("printed", ""), data.get("raised", "")
    _require(isinstance(printed, str) and len(printed) <= MAX_PRINTED, "bad printed text")
    _require(isinstance(raised, str) and len(raised) <= 200, "bad exception name")
    flags = {name: data.get(name, False) for name in ("too_slow", "stacks_nothing", "numpy_only")}
    _require(all(isinstance(flag, bool) for flag in flags.values()), "bad flags")
    output = None
    if "output" in data:
        _require(not raised, "a call that both raised and returned")
        output = output_from_wire(data["output"])
    else:
        _require(bool(raised), "a call that neither raised nor returned")
    return Call(output, printed, raised, **flags)


def output_from_wire(data: Any) -> Output:
    _require(isinstance(data, dict), "an output that is not an object")
    structure, leaves = data.get("structure"), data.get("leaves")
    _require(isinstance(structure, str) and len(structure) <= 100_000, "bad output structure")
    _require(isinstance(leaves, list) and len(leaves) <= MAX_LEAVES, "bad output leaves")
    return Output(structure, tuple(_leaf_from_wire(leaf) for leaf in leaves))


def _leaf_from_wire(data: Any) -> Leaf:
    _require(isinstance(data, dict), "a leaf that is not an object")
    if "digest" in data:
        digest = data["digest"]
        _require(isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest), "bad digest")
        return Leaf(digest=digest)
    dtype, wire, shape = data.get("dtype"), data.get("wire"), data.get("shape")
    _require(isinstance(dtype, str) and _DTYPE_NAME.fullmatch(dtype), "bad dtype")
    _require(wire in _WIRE_DTYPES, "bad wire dtype")
    _require(isinstance(data.get("weak"), bool), "bad weak flag")
    _require(
        isinstance(shape, list)
        and len(shape) <= 32
        and all(type(n) is int and n >= 0 for n in shape),
        "bad shape",
    )
    try:
        raw = base64.b64decode(data.get("data", ""), validate=True)
    except (TypeError, ValueError) as error:
        raise ValueError("bad leaf data") from error
    values = np.frombuffer(raw, dtype=np.dtype(wire))
    _require(values.size == math.prod(shape), "leaf data of the wrong size")
    return Leaf(dtype, values.reshape(shape), data["weak"])


def _require(condition: object, problem: str) -> None:
    if not condition:
        raise ValueError(problem)

"""Prove rewrites with real JAX in a child process; this package never imports JAX itself."""

from jaxlint.verify.protocol import STATUSES, Status, VerifyRequest, VerifyResult
from jaxlint.verify.runner import jax_available, verify

__all__ = ["STATUSES", "Status", "VerifyRequest", "VerifyResult", "jax_available", "verify"]

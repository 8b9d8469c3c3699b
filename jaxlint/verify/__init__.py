"""Prove rewrites with real JAX in a child process; this package never imports JAX itself."""

from jaxlint.verify.protocol import STATUSES, Status, VerifyRequest, VerifyResult
from jaxlint.verify.runner import VerificationSession, jax_available, shared_session, verify

__all__ = [
    "STATUSES",
    "Status",
    "VerificationSession",
    "VerifyRequest",
    "VerifyResult",
    "jax_available",
    "shared_session",
    "verify",
]

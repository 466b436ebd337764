"""Signing finished records with the server's Ed25519 key, and checking a signature (docs/AUDIT.md, "The
signature"). Pure: no Django (the key comes from the caller; ``games.audit.export`` loads the server's).

A record's ``signature`` is ``{"alg": "Ed25519", "key_id": K, "value": V}``: ``V`` is the hex Ed25519
signature of the canonical JSON of the record without its ``signature`` member, ``K`` the first 16 hex
digits of SHA-256 of the raw 32-byte public key. The public key is published as a JWK set (RFC 8037:
``kty`` OKP, ``crv`` Ed25519, ``x`` base64url of the raw key).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .public import canonical_json

ALG: Final = "Ed25519"
# HKDF-SHA256 parameters of the default key (derived from the server's SECRET_KEY)
HKDF_SALT: Final = b"goodcritters"
HKDF_INFO: Final = b"goodcritters record signing key v1"


def derive_private_key(secret: str) -> Ed25519PrivateKey:
    """The default signing key: HKDF-SHA256(ikm = utf8(secret), salt, info) -> the 32-byte Ed25519 seed."""
    seed = HKDF(algorithm=hashes.SHA256(), length=32, salt=HKDF_SALT, info=HKDF_INFO).derive(
        secret.encode("utf-8")
    )
    return Ed25519PrivateKey.from_private_bytes(seed)


def private_key_from_hex(text: str) -> Ed25519PrivateKey:
    """A key given as its 32-byte seed in 64 hex digits (``RECORD_SIGNING_KEY``)."""
    raw = bytes.fromhex(text.strip())
    if len(raw) != 32:
        raise ValueError("an Ed25519 private key is 32 bytes (64 hex digits)")
    return Ed25519PrivateKey.from_private_bytes(raw)


def raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(key: Ed25519PublicKey) -> str:
    return hashlib.sha256(raw_public(key)).hexdigest()[:16]


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def jwks(key: Ed25519PublicKey) -> dict[str, Any]:
    """The public key as a JWK set (what ``/.well-known/goodcritters-record-key`` serves)."""
    return {
        "keys": [
            {
                "kty": "OKP",
                "crv": "Ed25519",
                "alg": "EdDSA",
                "use": "sig",
                "kid": key_id(key),
                "x": _b64url(raw_public(key)),
            }
        ]
    }


def signed_bytes(record: Mapping[str, Any]) -> bytes:
    """What the signature is over: the canonical JSON of the record without ``signature``."""
    return canonical_json({k: v for k, v in record.items() if k != "signature"})


def sign(record: Mapping[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """``record`` with its ``signature`` (any previous one replaced)."""
    out = {k: v for k, v in record.items() if k != "signature"}
    out["signature"] = {
        "alg": ALG,
        "key_id": key_id(key.public_key()),
        "value": key.sign(signed_bytes(out)).hex(),
    }
    return out


def public_keys_from(text: str) -> list[Ed25519PublicKey]:
    """Public keys from what a user passes: 64 hex digits (the raw key), a JWK, a JWK set, or a file holding
    one of these. Raises ``ValueError`` on anything else."""
    candidate = text.strip()
    path = Path(candidate)
    if len(candidate) < 4096 and path.is_file():
        candidate = path.read_text(encoding="utf-8").strip()
    if len(candidate) == 64:
        try:
            return [Ed25519PublicKey.from_public_bytes(bytes.fromhex(candidate))]
        except ValueError:
            pass
    try:
        parsed = json.loads(candidate)
    except ValueError:
        raise ValueError("a key is 64 hex digits, a JWK or a JWK set (or a file holding one)") from None
    jwk_list = parsed.get("keys") if isinstance(parsed, dict) and "keys" in parsed else [parsed]
    keys = []
    for jwk in jwk_list or []:
        if not isinstance(jwk, dict) or jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
            raise ValueError("only Ed25519 keys (kty OKP, crv Ed25519) sign records")
        x = str(jwk.get("x", ""))
        raw = base64.urlsafe_b64decode(x + "=" * (-len(x) % 4))
        keys.append(Ed25519PublicKey.from_public_bytes(raw))
    if not keys:
        raise ValueError("no key found")
    return keys


def check(record: Mapping[str, Any], keys: list[Ed25519PublicKey]) -> str | None:
    """None when ``record`` carries a valid signature by one of ``keys``; else why not."""
    sig = record.get("signature")
    if not isinstance(sig, Mapping):
        return "the record is not signed"
    if sig.get("alg") != ALG:
        return f"unknown signature algorithm {sig.get('alg')!r} (expected {ALG!r})"
    try:
        value = bytes.fromhex(str(sig.get("value")))
    except ValueError:
        return "the signature is not hex"
    data = signed_bytes(record)
    for key in keys:
        try:
            key.verify(value, data)
        except InvalidSignature:
            continue
        if sig.get("key_id") != key_id(key):
            return "the signature's key_id is not that of the key that made it"
        return None
    return "the signature does not match the record with the given key (altered, or signed by another key)"

"""Secrets of an event: the director's password, devices' tokens and pairing codes.

Only hashes are stored, never the secret, and every comparison is constant-time
(`hmac.compare_digest`):

- the director's password, chosen by a person, gets a salted slow hash: scrypt (RFC 7914) with
  N = 2**15, r = 8, p = 1 (32 MiB and some 50-100 ms per check on a laptop; with five tries a
  minute, the lockout, not the hash, is what slows an online guesser), a 16-byte random salt
  and a 32-byte result, stored as `scrypt$32768$8$1$SALT$HASH` (base64) so that stronger
  parameters can come later without breaking stored events;
- a device's token is 256 random bits (`secrets.token_urlsafe(32)`): no guessing can find it,
  so its SHA-256 is enough, and a token is looked up by that hash;
- a pairing code is short, to be typed, and lives 10 minutes: 8 characters of an alphabet
  without look-alikes (no 0/O, 1/I/L), 40 bits, stored as its SHA-256, single use. Online, the
  limits on wrong codes bound a guesser; a copy of the event file is not bounded so, and a
  graphics card finds an unused code from its hash within its life. A slow hash would make every
  pairing try cost the service what it costs the copier, and a key kept beside the file is
  copied with it, so the threat model says so instead (docs/tournament.md).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from .errors import Unreadable

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**15, 8, 1
SCRYPT_MAXMEM = 64 * 1024 * 1024  # above 128 * N * r = 32 MiB (hashlib's default limit is 32 MiB)
SALT_BYTES, KEY_BYTES = 16, 32
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # 31 characters, none mistaken for another
CODE_LENGTH = 8
PASSWORD_WORDS = 4  # a generated password: 4 groups of 4 from CODE_ALPHABET.lower(), ~79 bits
MIN_PASSWORD = 12


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=SCRYPT_MAXMEM, dklen=KEY_BYTES)


def hash_password(password: str) -> str:
    """A salted scrypt hash of the password, with its parameters, for storing."""
    check_new_password(password)
    salt = secrets.token_bytes(SALT_BYTES)
    key = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(key)}"


def password_matches(password: str, stored: str) -> bool:
    """Whether the password is the one hashed in `stored`, in constant time."""
    try:
        scheme, n, r, p, salt, key = stored.split("$")
        if scheme != "scrypt":
            raise ValueError(scheme)
        expected = base64.b64decode(key, validate=True)
        actual = _scrypt(password, base64.b64decode(salt, validate=True), int(n), int(r), int(p))
    except (ValueError, AttributeError, TypeError):  # an edited hash: refused, and its value never shown
        raise Unreadable("director.password_hash") from None
    return hmac.compare_digest(actual, expected)


def check_new_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise ValueError(f"the director password has at least {MIN_PASSWORD} characters, not {len(password)}")


def new_password() -> str:
    """A readable random password, e.g. 'k7qh-3mxp-wz9c-r2td' (4 x 4 characters, about 79 bits)."""
    alphabet = CODE_ALPHABET.lower()
    return "-".join("".join(secrets.choice(alphabet) for _ in range(4)) for _ in range(PASSWORD_WORDS))


def new_token() -> str:
    """A device's token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_code() -> str:
    """A pairing code to type or scan: 8 characters of CODE_ALPHABET, shown as 'K7QH-3MXP'."""
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return f"{code[:4]}-{code[4:]}"


def normal_code(code: str) -> str:
    """A code as typed, read the forgiving way: case, spaces and dashes do not matter.

    >>> normal_code(' k7qh 3mxp ')
    'K7QH3MXP'
    """
    return "".join(c for c in code.upper() if c not in " -\t")


def code_hash(code: str) -> str:
    return hashlib.sha256(normal_code(code).encode("utf-8")).hexdigest()

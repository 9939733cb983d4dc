"""The server's secret key, which signs the saves its games export (see
:mod:`grognard.core.savefile`).

It lives in a file of its own, by default beside the database (``grognard.sqlite.key``): 32
random bytes written as 64 hex digits, created on first start with permissions 0600 (owner only)
and read on every later start, so the saves a server signed still import after a restart. Anyone
holding the key can sign saves this server will accept: keep it as private as the database, and
give two servers the same file to let either import the other's saves. Deleting it makes every
save signed with it unimportable.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

KEY_BYTES = 32
MIN_KEY_BYTES = 16


class KeyFileError(Exception):
    """The key file cannot be read, is malformed, or cannot be created."""


def default_key_file(db_path: str | Path) -> Path:
    """The key file beside a database file: ``DB.key``."""
    return Path(f"{db_path}.key")


def load_or_create_key(path: str | Path) -> bytes:
    """The key in ``path`` (hex digits), creating the file with a fresh random key if missing."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return read_key(p)
    except OSError as e:
        raise KeyFileError(f"{p}: cannot create the server key: {e.strerror}") from None
    key = secrets.token_bytes(KEY_BYTES)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(key.hex() + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return key


def read_key(path: str | Path) -> bytes:
    p = Path(path)
    try:
        text = p.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as e:
        raise KeyFileError(f"{p}: cannot read the server key: {e}") from None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        raise KeyFileError(f"{p}: the server key must be hex digits") from None
    if len(key) < MIN_KEY_BYTES:
        raise KeyFileError(f"{p}: the server key is {len(key)} bytes; it needs {MIN_KEY_BYTES}")
    return key

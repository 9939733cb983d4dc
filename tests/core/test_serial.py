"""The fast canonical encoding (fingerprints and hashes of the state): fractions encode as
``{"$frac": "n/d"}`` (whole ones as ``"n"``), the same bytes however often they are met."""

from __future__ import annotations

from fractions import Fraction

from grognard.core import serial


class Half(Fraction):
    """A subclass of Fraction: encoded as a fraction too."""


def test_fractions_encode_as_frac_objects_and_always_the_same_bytes() -> None:
    data = {"a": Fraction(1, 3), "b": Fraction(2), "c": [Fraction(-5, 4), Fraction(0)]}
    want = b'{"a":{"$frac":"1/3"},"b":{"$frac":"2"},"c":[{"$frac":"-5/4"},{"$frac":"0"}]}'
    assert serial.fast_canonical(data) == want
    assert serial.fast_canonical(data) == want  # the kept encodings give the same bytes
    assert serial.fast_canonical({"h": Half(1, 2)}) == b'{"h":{"$frac":"1/2"}}'
    # the encodings kept are bounded: a state with ever new fractions does not grow them forever
    for k in range(1, 12_000):
        serial.fast_canonical(Fraction(1, k))
    assert len(serial._FRACTIONS) <= 10_001
    assert serial.fast_canonical(Fraction(7, 9)) == b'{"$frac":"7/9"}'

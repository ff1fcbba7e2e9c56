"""Certificate pins: the leaf SHA-256 and the SPKI pin ``sha256//<base64>``.

The standard library hands over the peer certificate only as DER bytes
(``getpeercert(binary_form=True)``), so the few fields the SDK needs (the
SubjectPublicKeyInfo for SPKI pins, the names and expiry for
``openlolo-sdk fingerprint``) are read with a small DER walker.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import hashlib
import ipaddress
from typing import List, NamedTuple, Optional, Tuple

SPKI_PREFIX = "sha256//"

LEAF = "leaf"
KEY = "key"


class DERError(ValueError):
    """The bytes are not the DER certificate the walker expected."""


class _TLV(NamedTuple):
    tag: int
    start: int  # first byte of the header
    body: int  # first byte of the content
    end: int  # one past the last content byte


def _tlv(data: bytes, off: int, limit: Optional[int] = None) -> _TLV:
    """Read one tag-length-value at off (single-byte tags only, as X.509 uses)."""
    end_limit = len(data) if limit is None else limit
    if off + 2 > end_limit:
        raise DERError("truncated DER at offset %d" % off)
    tag = data[off]
    if tag & 0x1F == 0x1F:
        raise DERError("multi-byte DER tag at offset %d" % off)
    first = data[off + 1]
    pos = off + 2
    if first < 0x80:
        length = first
    else:
        n = first & 0x7F
        if n == 0 or n > 4 or pos + n > end_limit:
            raise DERError("bad DER length at offset %d" % off)
        length = int.from_bytes(data[pos:pos + n], "big")
        pos += n
    if pos + length > end_limit:
        raise DERError("DER value at offset %d runs past its container" % off)
    return _TLV(tag, off, pos, pos + length)


def _children(data: bytes, parent: _TLV) -> List[_TLV]:
    out: List[_TLV] = []
    off = parent.body
    while off < parent.end:
        t = _tlv(data, off, parent.end)
        out.append(t)
        off = t.end
    return out


_SEQUENCE = 0x30


def _tbs_fields(der: bytes) -> List[_TLV]:
    cert = _tlv(der, 0)
    if cert.tag != _SEQUENCE or cert.end != len(der):
        raise DERError("not a DER certificate (outer SEQUENCE)")
    parts = _children(der, cert)
    if len(parts) != 3 or parts[0].tag != _SEQUENCE:
        raise DERError("not a DER certificate (tbsCertificate)")
    fields = _children(der, parts[0])
    if fields and fields[0].tag == 0xA0:  # [0] EXPLICIT version
        fields = fields[1:]
    # serial, signature, issuer, validity, subject, subjectPublicKeyInfo, ...
    if len(fields) < 6:
        raise DERError("tbsCertificate has too few fields")
    return fields


def spki_der(der: bytes) -> bytes:
    """The DER SubjectPublicKeyInfo (header included) of a DER certificate."""
    spki = _tbs_fields(der)[5]
    if spki.tag != _SEQUENCE:
        raise DERError("subjectPublicKeyInfo is not a SEQUENCE")
    return der[spki.start:spki.end]


def fingerprint_hex(der: bytes) -> str:
    """The leaf fingerprint: SHA-256 of the DER certificate, 64 lower-case hex digits."""
    return hashlib.sha256(der).hexdigest()


def fingerprint_colon(der: bytes) -> str:
    """The leaf fingerprint as upper-case hex pairs joined by colons."""
    return ":".join("%02X" % b for b in hashlib.sha256(der).digest())


def spki_pin(der: bytes) -> str:
    """The SPKI pin ``sha256//`` + base64(SHA-256(SubjectPublicKeyInfo))."""
    return SPKI_PREFIX + base64.b64encode(hashlib.sha256(spki_der(der)).digest()).decode("ascii")


class Pin(NamedTuple):
    """One certificate (kind LEAF) or one public key (kind KEY)."""

    kind: str
    digest: bytes

    def matches(self, der: Optional[bytes]) -> bool:
        """Whether the DER certificate is the one this pin names. Fails closed."""
        if not der:
            return False
        try:
            if self.kind == LEAF:
                got = hashlib.sha256(der).digest()
            elif self.kind == KEY:
                got = hashlib.sha256(spki_der(der)).digest()
            else:
                return False
        except DERError:
            return False
        return _equal(got, self.digest)

    def __str__(self) -> str:
        if self.kind == LEAF:
            return self.digest.hex()
        return SPKI_PREFIX + base64.b64encode(self.digest).decode("ascii")


def _equal(a: bytes, b: bytes) -> bool:
    import hmac

    return hmac.compare_digest(a, b)


def parse_pin(s: str) -> Pin:
    """Read a pin spelled as 64 hex digits, 32 colon-separated hex pairs, or
    ``sha256//<base64>`` (as ``openlolo fingerprint`` prints them)."""
    s = s.strip()
    if not s:
        raise ValueError(
            "openlolo: empty pin; give the leaf SHA-256 (hex or colon-hex) or an SPKI pin "
            "sha256//<base64>, as openlolo fingerprint prints them"
        )
    if s.startswith(SPKI_PREFIX):
        try:
            raw = base64.b64decode(s[len(SPKI_PREFIX):], validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) != 32:
            raise ValueError("openlolo: SPKI pin %r is not sha256// followed by the base64 of 32 bytes" % s)
        return Pin(KEY, raw)
    h = s
    if ":" in s:
        parts = s.split(":")
        if any(len(p) != 2 for p in parts):
            raise ValueError("openlolo: colon-hex pin %r must be 32 pairs of hex digits" % s)
        h = "".join(parts)
    try:
        raw = bytes.fromhex(h)
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise ValueError(
            "openlolo: pin %r is not a SHA-256 fingerprint (64 hex digits, colon-hex, or sha256//<base64>)" % s
        )
    return Pin(LEAF, raw)


# --- names and validity, for `openlolo-sdk fingerprint` and the box name ---

_OID_SAN = bytes.fromhex("551d11")  # 2.5.29.17
_OID_CN = bytes.fromhex("550403")  # 2.5.4.3


def _time(der: bytes, t: _TLV) -> datetime.datetime:
    s = der[t.body:t.end].decode("ascii")
    if t.tag == 0x17:  # UTCTime YYMMDDHHMMSSZ
        year = int(s[0:2])
        year += 2000 if year < 50 else 1900
        rest = s[2:]
    elif t.tag == 0x18:  # GeneralizedTime YYYYMMDDHHMMSSZ
        year = int(s[0:4])
        rest = s[4:]
    else:
        raise DERError("validity time has tag 0x%02x" % t.tag)
    return datetime.datetime(
        year, int(rest[0:2]), int(rest[2:4]), int(rest[4:6]), int(rest[6:8]), int(rest[8:10]),
        tzinfo=datetime.timezone.utc,
    )


def not_after(der: bytes) -> datetime.datetime:
    """The certificate's notAfter, in UTC."""
    validity = _tbs_fields(der)[3]
    times = _children(der, validity)
    if len(times) != 2:
        raise DERError("validity is not two times")
    return _time(der, times[1])


def subject_names(der: bytes) -> Tuple[List[str], List[str]]:
    """The subjectAltName DNS names and IP addresses (as text), in order."""
    fields = _tbs_fields(der)
    dns: List[str] = []
    ips: List[str] = []
    for f in fields[6:]:
        if f.tag != 0xA3:  # [3] extensions
            continue
        exts = _tlv(der, f.body, f.end)
        for ext in _children(der, exts):
            parts = _children(der, ext)
            if not parts or der[parts[0].body:parts[0].end] != _OID_SAN:
                continue
            value = parts[-1]  # OCTET STRING holding GeneralNames
            names = _tlv(der, value.body, value.end)
            for n in _children(der, names):
                raw = der[n.body:n.end]
                if n.tag == 0x82:  # dNSName
                    dns.append(raw.decode("ascii", "replace"))
                elif n.tag == 0x87:  # iPAddress
                    ip = ipaddress.ip_address(raw)
                    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
                        ips.append(str(ip.ipv4_mapped))
                    else:
                        ips.append(str(ip))
    return dns, ips


def common_name(der: bytes) -> str:
    """The subject's first commonName, or ""."""
    subject = _tbs_fields(der)[4]
    for rdn in _children(der, subject):
        for atv in _children(der, rdn):
            parts = _children(der, atv)
            if len(parts) == 2 and der[parts[0].body:parts[0].end] == _OID_CN:
                return der[parts[1].body:parts[1].end].decode("utf-8", "replace")
    return ""


def box_name(der: bytes) -> str:
    """The box's name from its certificate: the first DNS name ending in
    .local without that suffix, else the subject's commonName."""
    try:
        dns, _ = subject_names(der)
        for n in dns:
            if n.endswith(".local"):
                return n[: -len(".local")]
        return common_name(der)
    except (DERError, ValueError):
        return ""

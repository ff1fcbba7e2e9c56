"""The per-user token store, shared byte for byte with the Go client.

``$XDG_CONFIG_HOME/openlolo/boxes.json`` (or ``~/.config/openlolo/boxes.json``),
mode 0600 in a 0700 directory::

    {"version": 1, "boxes": {"<url>": {<entry>}}}

Writes are atomic (temp file, fsync, rename, fsync of the directory) and every
read-modify-write holds an exclusive ``flock`` on ``boxes.json.lock``, the same
lock the Go SDK takes, so a Python and a Go process refreshing one grant at
once never present a used refresh token.
"""

from __future__ import annotations

import datetime
import errno
import fcntl
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from .errors import NotPaired, StoreError

STORE_VERSION = 1

# Access tokens are not sent in their last seconds (as the Go client).
EXPIRY_MARGIN = 30.0

_ZERO_TIME = "0001-01-01T00:00:00Z"


def default_store_path() -> str:
    """$XDG_CONFIG_HOME/openlolo/boxes.json, or ~/.config/openlolo/boxes.json."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    if not base:
        base = os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "openlolo", "boxes.json")


_TIME_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$"
)


def parse_time(s: str) -> float:
    """An RFC 3339 time as Go's time.Time writes it, as a Unix timestamp.
    The zero time (0001-01-01T00:00:00Z) and "" are 0.0."""
    if not s or s == _ZERO_TIME:
        return 0.0
    m = _TIME_RE.match(s)
    if not m:
        raise ValueError("not an RFC 3339 time: %r" % s)
    y, mo, d, h, mi, sec, frac, zone = m.groups()
    if zone == "Z":
        tz = datetime.timezone.utc
    else:
        sign = 1 if zone[0] == "+" else -1
        tz = datetime.timezone(sign * datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
    dt = datetime.datetime(int(y), int(mo), int(d), int(h), int(mi), int(sec), tzinfo=tz)
    ts = dt.timestamp()
    if frac:
        ts += int(frac) / (10 ** len(frac))
    return ts


def format_time(ts: float) -> str:
    """A Unix timestamp as Go writes a UTC time.Time (RFC 3339, trailing zeros
    of the fraction dropped). 0.0 is Go's zero time."""
    if ts == 0.0:
        return _ZERO_TIME
    whole = int(ts // 1)
    micros = int(round((ts - whole) * 1_000_000))
    if micros == 1_000_000:
        whole, micros = whole + 1, 0
    dt = datetime.datetime.fromtimestamp(whole, tz=datetime.timezone.utc)
    s = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if micros:
        s += ("." + "%06d" % micros).rstrip("0")
    return s + "Z"


# Members of an entry in the order Go's encoder writes them; omitempty ones
# are left out when empty.
_FIELDS: Tuple[Tuple[str, str, bool], ...] = (
    ("url", "url", False),
    ("name", "name", True),
    ("pin", "pin", True),
    ("fingerprint", "fingerprint", True),
    ("entry", "entry", False),
    ("issuer", "issuer", False),
    ("client_id", "client_id", False),
    ("client_name", "client_name", False),
    ("scope", "scope", False),
    ("access_token", "access_token", False),
    ("refresh_token", "refresh_token", False),
)


@dataclass
class BoxEntry:
    """What a client keeps about one paired box (one entry of boxes.json).

    ``expires_at`` and ``paired_at`` are Unix timestamps (0.0: unset).
    """

    url: str
    name: str = ""
    pin: str = ""
    fingerprint: str = ""
    entry: str = "lan"
    issuer: str = ""
    client_id: str = ""
    client_name: str = ""
    scope: str = ""
    access_token: str = ""
    refresh_token: str = ""
    expires_at: float = 0.0
    paired_at: float = 0.0
    extra: Dict[str, Any] = field(default_factory=dict)

    def expired(self, now: float) -> bool:
        """Whether the access token is unusable at now (with a 30 s margin)."""
        return self.access_token == "" or now >= self.expires_at - EXPIRY_MARGIN

    def to_json(self) -> Dict[str, Any]:
        """The entry as the Go encoder lays it out (Python dicts keep order)."""
        out: Dict[str, Any] = {}
        for attr, key, omitempty in _FIELDS:
            v = getattr(self, attr)
            if omitempty and v == "":
                continue
            out[key] = v
        out["expires_at"] = format_time(self.expires_at)
        out["paired_at"] = format_time(self.paired_at)
        for k, v in self.extra.items():
            if k not in out:
                out[k] = v
        return out

    @classmethod
    def from_json(cls, url: str, raw: Any) -> "BoxEntry":
        """Read one entry; the map key wins over a missing url member."""
        if not isinstance(raw, dict):
            raise ValueError("entry for %s is not an object" % url)
        kw: Dict[str, Any] = {}
        known = {"expires_at", "paired_at"}
        for attr, key, _ in _FIELDS:
            known.add(key)
            v = raw.get(key, "")
            if v is None:
                v = ""
            if not isinstance(v, str):
                raise ValueError("entry for %s: %s is not a string" % (url, key))
            kw[attr] = v
        if not kw["url"]:
            kw["url"] = url
        kw["expires_at"] = parse_time(raw.get("expires_at") or "")
        kw["paired_at"] = parse_time(raw.get("paired_at") or "")
        kw["extra"] = {k: v for k, v in raw.items() if k not in known}
        return cls(**kw)


def _go_json(doc: Any, sort_keys: bool = False) -> bytes:
    """JSON as Go's json.MarshalIndent(v, "", "  ") writes it, plus a newline:
    HTML-sensitive characters and U+2028/U+2029 escaped, other non-ASCII raw.
    sort_keys: as Go writes a map (the store's entries are structs)."""
    s = json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=sort_keys)
    # These characters can only occur inside strings in JSON text.
    s = (
        s.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
    return (s + "\n").encode("utf-8")


class TokenStore:
    """The boxes.json file. Safe across processes (Go and Python alike)."""

    def __init__(self, path: Optional[str] = None) -> None:
        self.path = path or default_store_path()

    # --- reads (no lock: writes are atomic renames) ---

    def _read(self) -> Dict[str, BoxEntry]:
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return {}
        except OSError as e:
            raise StoreError("openlolo: read token store %s: %s" % (self.path, e)) from e
        try:
            doc = json.loads(data.decode("utf-8"))
            if not isinstance(doc, dict):
                raise ValueError("top level is not an object")
            version = doc.get("version", STORE_VERSION)
            if not isinstance(version, int):
                raise ValueError("version is not a number")
            if version > STORE_VERSION:
                raise StoreError(
                    "openlolo: token store %s has format %d, this client knows %d; update openlolo"
                    % (self.path, version, STORE_VERSION)
                )
            boxes = doc.get("boxes")
            if boxes is None:
                boxes = {}
            if not isinstance(boxes, dict):
                raise ValueError("boxes is not an object")
            return {url: BoxEntry.from_json(url, raw) for url, raw in boxes.items()}
        except StoreError:
            raise
        except (ValueError, UnicodeDecodeError) as e:
            raise StoreError(
                "openlolo: token store %s is not valid (%s); move it aside and pair again" % (self.path, e)
            ) from e

    def get(self, url: str) -> BoxEntry:
        """The entry for url; NotPaired when there is none."""
        b = self._read().get(url)
        if b is None:
            raise NotPaired(url)
        return b

    def find(self, url: str) -> Optional[BoxEntry]:
        """The entry for url, or None."""
        return self._read().get(url)

    def list(self) -> List[BoxEntry]:
        """Every stored box, sorted by URL."""
        boxes = self._read()
        return [boxes[k] for k in sorted(boxes)]

    # --- read-modify-write under the lock ---

    def put(self, entry: BoxEntry) -> None:
        """Store entry under entry.url, replacing any earlier one."""
        self.update(entry.url, lambda cur: entry)

    def delete(self, url: str) -> None:
        """Remove the entry for url; a missing entry is not an error."""
        with self._locked() as boxes:
            if url in boxes:
                del boxes[url]
                self._write(boxes)

    def update(self, url: str, fn: Callable[[Optional[BoxEntry]], BoxEntry]) -> BoxEntry:
        """Run fn on the current entry for url (None if there is none) while
        holding the exclusive lock, after re-reading the file, and write fn's
        result before the lock is released. fn may do network I/O (a token
        refresh): other processes wait. If fn raises, nothing is written."""
        with self._locked() as boxes:
            nxt = fn(boxes.get(url))
            nxt.url = url
            boxes[url] = nxt
            self._write(boxes)
            return nxt

    class _Lock:
        def __init__(self, store: "TokenStore") -> None:
            self.store = store
            self.fd = -1

        def __enter__(self) -> Dict[str, BoxEntry]:
            st = self.store
            d = os.path.dirname(st.path) or "."
            try:
                os.makedirs(d, mode=0o700, exist_ok=True)
                self.fd = os.open(st.path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as e:
                raise StoreError("openlolo: token store lock: %s" % e) from e
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX)  # EINTR is retried by Python
                return st._read()
            except BaseException:
                os.close(self.fd)
                self.fd = -1
                raise

        def __exit__(self, *exc: Any) -> None:
            if self.fd >= 0:
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_UN)
                finally:
                    os.close(self.fd)
                    self.fd = -1

    def _locked(self) -> "TokenStore._Lock":
        return TokenStore._Lock(self)

    def _write(self, boxes: Dict[str, BoxEntry]) -> None:
        doc = {
            "version": STORE_VERSION,
            "boxes": {url: boxes[url].to_json() for url in sorted(boxes)},
        }
        data = _go_json(doc)
        d = os.path.dirname(self.path) or "."
        try:
            fd, tmp = tempfile.mkstemp(prefix=".boxes-", suffix=".json", dir=d)
        except OSError as e:
            raise StoreError("openlolo: write token store: %s" % e) from e
        try:
            try:
                os.fchmod(fd, 0o600)
                view = memoryview(data)
                while view:
                    n = os.write(fd, view)
                    view = view[n:]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(tmp, self.path)
        except OSError as e:
            raise StoreError("openlolo: write token store: %s" % e) from e
        finally:
            try:
                os.unlink(tmp)
            except OSError as e:
                if e.errno != errno.ENOENT:
                    raise
        try:
            dfd = os.open(d, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(dfd)
        except OSError:
            pass
        finally:
            os.close(dfd)


"""``openlolo-sdk``: pair with a box, call one tool, show a box's pins.

The same commands, arguments, output and exit statuses as the Go
``openlolo pair|call|fingerprint``:

* 0  done
* 1  the box refused or failed the call (the stable code is printed)
* 2  usage mistake (bad flag, address, pin, tool or argument)
* 3  connection, certificate pin, pairing or grant problem
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
from typing import Any, Dict, List, Mapping, NoReturn, Optional, Sequence, TextIO

from .client import DEFAULT_SCOPES, Box, default_client_name
from .errors import (
    AccessDenied,
    ConnectionProblem,
    OpenloloError,
    PairingError,
    ProtocolError,
    Refused,
    StoreError,
)
from .oauth import OAuthError
from .pin import DERError, common_name, fingerprint_colon, fingerprint_hex, not_after, spki_pin, subject_names
from .store import TokenStore
from .transport import fetch_certificate, normalize_url

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_CONNECTION = 0, 1, 2, 3

PROG = "openlolo-sdk"


class UsageError(Exception):
    """A mistake on the command line: exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError("%s\n%s" % (message, self.format_usage().strip()))


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Pair with an openlolo box and call its tools (pinned HTTPS).")
    sub = p.add_subparsers(dest="command", metavar="<command>", parser_class=_Parser)
    pp = sub.add_parser("pair", help="pair with a box: the owner approves on the box page (Access)")
    pp.add_argument("box", help="the box's address, e.g. openlolo-1a2b.local or https://192.168.1.20:8443")
    pp.add_argument("--pin", default="", help="expected certificate: leaf SHA-256 (hex or colon-hex) or sha256//<base64>")
    pp.add_argument("--yes", action="store_true", help="trust the certificate the box presents now (trust on first use)")
    pp.add_argument("--name", default="", help="client name shown to the owner (default '<program> on <host>')")
    pp.add_argument("--scope", default=" ".join(DEFAULT_SCOPES), help="scopes to ask for (default %(default)r)")
    pp.add_argument("--store", default="", help="token store file (default $XDG_CONFIG_HOME/openlolo/boxes.json)")
    pc = sub.add_parser("call", help="call one tool: call BOX TOOL key=value ...")
    pc.add_argument("box")
    pc.add_argument("tool", help="tool name, e.g. openlolo_screenshot (the openlolo_ prefix may be left out)")
    pc.add_argument("args", nargs="*", metavar="key=value", help="arguments, typed by the tool's input schema")
    pc.add_argument("--out", default="", help="file for a screenshot's image (default: a new temporary file)")
    pc.add_argument("--store", default="", help="token store file (default $XDG_CONFIG_HOME/openlolo/boxes.json)")
    pf = sub.add_parser("fingerprint", help="print the certificate pins of a state dir or of a box at https://host:port")
    pf.add_argument("address", nargs="?", default="")
    pf.add_argument("--state", default="", help="state directory of a box on this machine")
    return p


# ------------------------------------------------------------ typed arguments


def _type_value(key: str, raw: str, sch: Mapping[str, Any]) -> Any:
    types = sch.get("type")
    tl: List[str] = types if isinstance(types, list) else [types] if isinstance(types, str) else []
    if "string" in tl or not tl:
        return raw  # strings stay strings (frame_id, geometry_epoch, text, ...)
    try:
        if "integer" in tl:
            return int(raw)
        if "number" in tl:
            return float(raw)
        if "boolean" in tl:
            low = raw.lower()
            if low in ("true", "1", "yes"):
                return True
            if low in ("false", "0", "no"):
                return False
            raise ValueError(raw)
        if "array" in tl:
            if raw.startswith("["):
                v = json.loads(raw)
                if not isinstance(v, list):
                    raise ValueError(raw)
                return v
            items = sch.get("items") if isinstance(sch.get("items"), dict) else {}
            return [_type_value(key, part, items) for part in raw.split(",") if part != ""]
        if "object" in tl:
            v = json.loads(raw)
            if not isinstance(v, dict):
                raise ValueError(raw)
            return v
    except ValueError:
        raise UsageError("%s=%s: want %s" % (key, raw, " or ".join(tl))) from None
    return raw


def typed_args(tool: Mapping[str, Any], pairs: Sequence[str]) -> Dict[str, Any]:
    """key=value pairs as the arguments object, typed by the tool's inputSchema."""
    schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
    props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    out: Dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise UsageError("argument %r is not key=value" % pair)
        if key not in props:
            names = ", ".join(sorted(props)) or "no arguments"
            raise UsageError("%s has no argument %r; it takes: %s" % (tool.get("name"), key, names))
        sch = props[key] if isinstance(props[key], dict) else {}
        out[key] = _type_value(key, raw, sch)
    return out


# ------------------------------------------------------------------ commands


def _store(path: str) -> TokenStore:
    return TokenStore(path or None)


def cmd_pair(a: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    try:
        url = normalize_url(a.box)
        if a.pin:
            from .pin import parse_pin

            parse_pin(a.pin)
    except ValueError as e:
        raise UsageError(str(e)) from None
    scopes = a.scope.split()

    def confirm(fp: str, spki: str, der: bytes) -> bool:
        print("The box at %s presents this certificate:" % url, file=out)
        print("Fingerprint:  %s" % fp, file=out)
        print("SPKI pin:     %s" % spki, file=out)
        if a.yes:
            return True
        if not stdin.isatty():
            raise UsageError("not a terminal: compare the fingerprint with the box's console or box page, then run again with --yes or --pin")
        print("Does it match what the box shows (console or box page)? [y/N] ", end="", file=out, flush=True)
        return stdin.readline().strip().lower() in ("y", "yes")

    def prompt(msg: str, code: str, link: str) -> None:
        print(msg, file=out, flush=True)
        if link:
            print("Box page: " + link, file=out, flush=True)

    box = Box(url, store=_store(a.store))
    entry = box.pair(pin=a.pin or None, client_name=a.name or default_client_name(), scopes=scopes,
                     confirm=confirm, prompt=prompt)
    print("Paired with %s as '%s' (scopes: %s). The grant is stored in %s."
          % (url, entry.client_name, entry.scope, box.store.path), file=out)
    return EXIT_OK


def cmd_call(a: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        url = normalize_url(a.box)
    except ValueError as e:
        raise UsageError(str(e)) from None
    box = Box(url, store=_store(a.store))
    name = a.tool if a.tool.startswith("openlolo_") else "openlolo_" + a.tool
    tools = {t.get("name"): t for t in box.list_tools()}
    if name not in tools:
        raise UsageError("the box offers no tool %r to this client; it offers: %s" % (name, ", ".join(sorted(str(k) for k in tools))))
    args = typed_args(tools[name], a.args)
    from .client import MUTATING_TOOLS

    try:
        res = box.mutate(name, args) if name in MUTATING_TOOLS else box.call_tool(name, args)
    except Refused as r:
        doc = r.result.structured if r.result is not None else {"status": "failed", "error": {"code": r.code, "message": r.message}}
        print(json.dumps(doc, indent=2, sort_keys=True), file=out)
        raise
    doc = dict(res.structured)
    if res.images:
        img = res.images[0]
        path = a.out
        if path:
            with open(path, "wb") as f:
                f.write(img.data)
        else:
            ext = ".png" if img.mime_type == "image/png" else ".jpg"
            fd, path = tempfile.mkstemp(prefix="openlolo-", suffix=ext)
            with os.fdopen(fd, "wb") as f:
                f.write(img.data)
        doc["image_file"] = path
        print("Image written to %s" % path, file=err)
    print(json.dumps(doc, indent=2, sort_keys=True), file=out)
    return EXIT_OK


def print_pins(out: TextIO, der: bytes) -> None:
    """The lines `openlolo fingerprint` prints for a certificate."""
    print("Fingerprint:  %s" % fingerprint_hex(der), file=out)
    print("Colon form:   %s" % fingerprint_colon(der), file=out)
    print("SPKI pin:     %s" % spki_pin(der), file=out)
    dns, ips = subject_names(der)
    print("Names:        %s" % " ".join(dns + ips), file=out)
    print("Valid until:  %s" % not_after(der).strftime("%Y-%m-%d"), file=out)


def _pem_certificate(path: str) -> bytes:
    import base64

    with open(path, "r", encoding="ascii") as f:
        text = f.read()
    begin, end = "-----BEGIN CERTIFICATE-----", "-----END CERTIFICATE-----"
    i = text.find(begin)
    j = text.find(end, i + 1)
    if i < 0 or j < 0:
        raise ValueError("%s holds no PEM certificate" % path)
    return base64.b64decode("".join(text[i + len(begin):j].split()))


def cmd_fingerprint(a: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if a.state and not a.address:
        path = os.path.join(a.state, "lan-cert.pem")
        if not os.path.exists(path):
            raise OpenloloError("openlolo: no certificate in %s yet: start the box once with openlolo serve --state %s" % (a.state, a.state))
        try:
            der = _pem_certificate(path)
            print_pins(out, der)
        except (OSError, ValueError, DERError) as e:
            raise OpenloloError("openlolo: read %s: %s" % (path, e)) from e
        return EXIT_OK
    if a.address and not a.state:
        try:
            url = normalize_url(a.address if "://" in a.address else "https://" + a.address)
        except ValueError as e:
            raise UsageError("%r is not an address like https://openlolo-ab12.local or https://192.168.1.20:8443 (%s)" % (a.address, e)) from None
        der = fetch_certificate(url, 15.0)
        print_pins(out, der)
        print("These are the pins %s presents now. Trust them only if they match what the box itself shows "
              "(its console or box page)." % url[len("https://"):], file=err)
        return EXIT_OK
    raise UsageError("give either --state DIR or one address https://host[:port], not both")


def main(argv: Optional[Sequence[str]] = None, out: TextIO = sys.stdout, err: TextIO = sys.stderr,
         stdin: TextIO = sys.stdin) -> int:
    """Run one command and return its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    p = _parser()
    cmd = args[0] if args else ""
    try:
        if not args:
            print(p.format_usage().strip(), file=err)
            return EXIT_USAGE
        if args[0] in ("-h", "--help", "help"):
            p.print_help(out)
            return EXIT_OK
        try:
            a = p.parse_args(args)
        except SystemExit as e:  # -h on a subcommand
            return EXIT_OK if e.code in (0, None) else EXIT_USAGE
        if a.command == "pair":
            return cmd_pair(a, out, err, stdin)
        if a.command == "call":
            return cmd_call(a, out, err)
        if a.command == "fingerprint":
            return cmd_fingerprint(a, out, err)
        raise UsageError("unknown command %r (pair, call, fingerprint)" % cmd)
    except UsageError as e:
        print("%s %s: %s" % (PROG, cmd, e), file=err)
        return EXIT_USAGE
    except Refused as r:
        print("%s %s: %s" % (PROG, cmd, r), file=err)
        return EXIT_REFUSED
    except AccessDenied as e:
        print("%s %s: access_denied: %s" % (PROG, cmd, e), file=err)
        return EXIT_REFUSED
    except (ConnectionProblem, PairingError, StoreError) as e:
        print("%s %s: %s" % (PROG, cmd, e), file=err)
        return EXIT_CONNECTION
    except (ProtocolError, OAuthError, OpenloloError) as e:
        print("%s %s: %s" % (PROG, cmd, e), file=err)
        return EXIT_REFUSED
    except KeyboardInterrupt:
        print("%s %s: interrupted" % (PROG, cmd), file=err)
        return 130


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())

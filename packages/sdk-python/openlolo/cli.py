"""``openlolo-sdk``: pair with a box, call one tool, show a box's pins.

The same commands, flags, output and exit statuses as the Go
``openlolo pair|call|fingerprint``:

* 0  done
* 1  the box refused the call (its code is printed); for ``fingerprint``,
     any failure
* 2  usage mistake (bad flag, address, pin, tool or argument)
* 3  connection, certificate pin, pairing or grant problem
* 4  the call waits for the owner's answer (an ask, status "pending");
     nothing ran yet (``--wait`` waits and sends it again)

The token store is ``$OPENLOLO_STORE`` when set, else
``$XDG_CONFIG_HOME/openlolo/boxes.json`` (``~/.config/...``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, TextIO, Tuple

from .client import Box, Image, Result, default_client_name
from .errors import AskPending, OpenloloError, Refused
from .pin import DERError, fingerprint_colon, fingerprint_hex, not_after, parse_pin, spki_pin, subject_names
from .store import TokenStore, _go_json, default_store_path
from .transport import fetch_certificate, normalize_url

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_CONNECTION, EXIT_PENDING = 0, 1, 2, 3, 4

# How long one openlolo_watch waits for an ask event during --wait (the
# box's default, api.DefaultWaitMS).
WAIT_MS = 25000
# How long control lasts without a control call (api.LeaseTime).
LEASE_SECONDS = 90

PROG = "openlolo-sdk"


class UsageError(Exception):
    """A mistake on the command line: exit status 2."""


class _Help(Exception):
    """-h was given: the usage has been printed, exit 0."""


class ExitError(Exception):
    """A failure with a given exit status; quiet when already explained."""

    def __init__(self, code: int, err: BaseException, quiet: bool = False) -> None:
        super().__init__(str(err))
        self.code = code
        self.quiet = quiet


# ---------------------------------------------------------------- flags


class Flag:
    """One flag as Go's flag package takes it: -name or --name, a value as
    the next word or after "=", booleans without a value."""

    def __init__(self, name: str, default: Any, usage: str) -> None:
        self.name = name
        self.default = default
        self.usage = usage
        self.is_bool = isinstance(default, bool)


def parse_flags(cmd: str, synopsis: str, flags: Sequence[Flag], args: Sequence[str], err: TextIO) -> Tuple[Dict[str, Any], List[str]]:
    """Flags may stand between positional arguments ("call BOX TOOL --out f x=1")."""
    by_name = {f.name: f for f in flags}
    values: Dict[str, Any] = {f.name: f.default for f in flags}
    pos: List[str] = []
    i = 0
    args = list(args)
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            pos.extend(args[i:])
            break
        if not a.startswith("-") or a == "-":
            pos.append(a)
            continue
        name = a.lstrip("-")
        if a.startswith("---") or not name:
            raise UsageError("bad flag syntax: %s" % a)
        value: Optional[str] = None
        if "=" in name:
            name, value = name.split("=", 1)
        if name in ("h", "help"):
            _usage(cmd, synopsis, flags, err)
            raise _Help()
        f = by_name.get(name)
        if f is None:
            _usage(cmd, synopsis, flags, err)
            raise UsageError("flag provided but not defined: -%s" % name)
        if f.is_bool:
            if value is None:
                values[name] = True
            else:
                b = _parse_bool(value)
                if b is None:
                    raise UsageError('invalid boolean value "%s" for -%s' % (value, name))
                values[name] = b
            continue
        if value is None:
            if i >= len(args):
                raise UsageError("flag needs an argument: -%s" % name)
            value = args[i]
            i += 1
        values[name] = value
    return values, pos


def _usage(cmd: str, synopsis: str, flags: Sequence[Flag], err: TextIO) -> None:
    print("usage: %s %s %s\n\nflags:" % (PROG, cmd, synopsis), file=err)
    for f in flags:
        kind = "" if f.is_bool else " string"
        print("  -%s%s\n    \t%s" % (f.name, kind, f.usage), file=err)


def _parse_bool(v: str) -> Optional[bool]:
    if v in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if v in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


# ------------------------------------------------------------ the store


def token_store(env: Mapping[str, str]) -> TokenStore:
    """$OPENLOLO_STORE, else $XDG_CONFIG_HOME/openlolo/boxes.json, else the default."""
    if env.get("OPENLOLO_STORE"):
        return TokenStore(env["OPENLOLO_STORE"])
    if env.get("XDG_CONFIG_HOME"):
        return TokenStore(os.path.join(env["XDG_CONFIG_HOME"], "openlolo", "boxes.json"))
    return TokenStore(default_store_path())


def resolve_box(st: TokenStore, arg: str) -> str:
    """A URL or host, normalized; a bare name (openlolo-1a2b) is a stored
    box's name, else name.local."""
    if not any(c in arg for c in ".:/"):
        for b in st.list():
            if b.name == arg:
                return b.url
        arg += ".local"
    try:
        return normalize_url(arg)
    except ValueError as e:
        raise UsageError(str(e)) from None


def client_exit(e: BaseException) -> ExitError:
    """SDK errors as exit statuses: a refusal is 1, a call waiting for the
    owner 4, everything else 3."""
    if isinstance(e, Refused):
        return ExitError(EXIT_REFUSED, e)
    if isinstance(e, AskPending):
        return ExitError(EXIT_PENDING, e)
    return ExitError(EXIT_CONNECTION, e)


# ------------------------------------------------------------ typed arguments


def _type_of(prop: Mapping[str, Any]) -> str:
    t = prop.get("type")
    if isinstance(t, str):
        return t
    if isinstance(t, list):
        for s in t:
            if isinstance(s, str) and s != "null":
                return s
    return ""


_INT_RE = re.compile(r"[+-]?[0-9]+")


def typed_value(prop: Mapping[str, Any], v: str) -> Any:
    """One value typed by its schema: numbers, booleans, JSON for arrays and
    objects (a,b,c for an array of strings), strings as given. ValueError
    says what was wanted."""
    typ = _type_of(prop)
    if typ == "number":
        try:
            return float(v)
        except ValueError:
            raise ValueError("want a number") from None
    if typ == "integer":
        if not _INT_RE.fullmatch(v):
            raise ValueError("want a whole number")
        return int(v)
    if typ == "boolean":
        b = _parse_bool(v)
        if b is None:
            raise ValueError("want true or false")
        return b
    if typ in ("array", "object"):
        try:
            return json.loads(v)
        except ValueError as e:
            if typ == "array" and not v.strip().startswith("["):
                return [s.strip() for s in v.split(",")]
            raise ValueError("want JSON (%s)" % e) from None
    return v


def tool_props(tool: Mapping[str, Any]) -> Dict[str, Any]:
    """The input schema's properties of a tools/list entry."""
    sch = tool.get("inputSchema")
    props = sch.get("properties") if isinstance(sch, dict) else None
    return props if isinstance(props, dict) else {}


def typed_args(tool: Mapping[str, Any], words: Sequence[str]) -> Dict[str, Any]:
    """key=value words as the arguments object, typed by the tool's input schema."""
    props = tool_props(tool)
    out: Dict[str, Any] = {}
    for w in words:
        k, sep, v = w.partition("=")
        if not sep or not k:
            raise UsageError("argument %s is not key=value" % json.dumps(w))
        p = props.get(k)
        if not isinstance(p, dict):
            raise UsageError("%s has no argument %s; it takes: %s" % (tool.get("name"), json.dumps(k), ", ".join(sorted(props))))
        try:
            out[k] = typed_value(p, v)
        except ValueError as e:
            raise UsageError("%s=%s: %s" % (k, json.dumps(v), e)) from None
    return out


def mutating(tool: Mapping[str, Any]) -> bool:
    """A tool that takes an operation_id changes the phone: the once-only retry applies."""
    return "operation_id" in tool_props(tool)


# ------------------------------------------------------------------ commands


def cmd_pair(args: Sequence[str], out: TextIO, err: TextIO, stdin: TextIO, env: Mapping[str, str]) -> None:
    fl, pos = parse_flags("pair", "BOX [--name NAME] [--scope 'phone:read phone:control'] [--pin sha256//…] [--yes]", [
        Flag("name", "", "client name the owner sees (default '<program> on <hostname>')"),
        Flag("scope", "phone:read phone:control", "scopes to ask for"),
        Flag("pin", "", "expected certificate pin (leaf SHA-256 or sha256//SPKI); any other certificate is refused"),
        Flag("yes", False, "trust the certificate the box presents without asking (trust on first use, unattended)"),
    ], args, err)
    if len(pos) != 1:
        raise UsageError("give one box: %s pair openlolo-1a2b.local (or https://host:port)" % PROG)
    st = token_store(env)
    url = resolve_box(st, pos[0])
    if fl["pin"]:
        try:
            parse_pin(fl["pin"])
        except ValueError as e:
            raise ExitError(EXIT_CONNECTION, e) from None

    def confirm(fp: str, spki: str, der: bytes) -> bool:
        print("%s presents this certificate:" % url, file=err)
        print("  Fingerprint: %s\n  SPKI pin:    %s" % (fingerprint_colon(der), spki), file=err)
        print("Compare it with the box's console or its box page (Connect).", file=err)
        if fl["yes"]:
            print("Trusting it (--yes).", file=err)
            return True
        print("Trust this box? [y/N] ", end="", file=err, flush=True)
        return stdin.readline().strip().lower() in ("y", "yes")

    def prompt(msg: str, code: str, link: str) -> None:
        print(msg, file=err)
        if link:
            print("Box page: %s" % link, file=err)
        print("Waiting for the owner to approve…", file=err, flush=True)

    box = Box(url, store=st)
    try:
        paired = box.pair(pin=fl["pin"] or None, client_name=fl["name"] or default_client_name(),
                          scopes=fl["scope"].split(), confirm=None if fl["pin"] else confirm, prompt=prompt)
    except OpenloloError as x:
        raise client_exit(x) from None
    print("Paired with %s as %s." % (paired.url, json.dumps(paired.client_name, ensure_ascii=False)), file=out)
    print("  box:         %s\n  pin:         %s\n  fingerprint: %s\n  client_id:   %s\n  scope:       %s\n  entry:       %s\n  stored in:   %s"
          % (paired.name, paired.pin, paired.fingerprint, paired.client_id, paired.scope, paired.entry, st.path), file=out)
    print("Try: %s call %s openlolo_status" % (PROG, paired.url[len("https://"):]), file=out)


def write_image(path: str, img: Image) -> str:
    """The image to path, or to a new temp file; returns where."""
    try:
        if not path:
            fd, path = tempfile.mkstemp(prefix="openlolo-screenshot-", suffix=image_ext(img.mime_type))
            with os.fdopen(fd, "wb") as f:
                f.write(img.data)
            return path
        with open(path, "wb") as f:
            f.write(img.data)
        return path
    except OSError as e:
        raise ExitError(EXIT_CONNECTION, OpenloloError("write screenshot: %s" % e)) from None


def image_ext(mime_type: str) -> str:
    """The file extension of an image block's MIME type."""
    return ".png" if mime_type == "image/png" else ".jpg"


def image_path(out: str, i: int, n: int, mime_type: str) -> str:
    """Where image i of n goes: out itself for one image; for several, out's
    name with -1, -2, … before its extension (page.jpg → page-1.jpg), or
    with the image's own extension when out has none. "" (no --out) means a
    new temp file."""
    if not out or n == 1:
        return out
    base, ext = os.path.splitext(out)
    return "%s-%d%s" % (base, i + 1, ext or image_ext(mime_type))


def save_images(out_path: str, res: Result, doc: Dict[str, Any], err: TextIO) -> None:
    """The answer's images to files, named in doc: image_file for one,
    image_files (in the answer's order) for several, as openlolo_full_page
    gives. Without --out a screenshot or full page goes to temp files,
    while an input's observation is not saved."""
    n = len(res.images)
    if n == 0 or (not out_path and "observation" in res.structured):
        return
    paths = []
    for i, img in enumerate(res.images):
        p = write_image(image_path(out_path, i, n, img.mime_type), img)
        print("image written to %s" % p, file=err)
        paths.append(p)
    if n == 1:
        doc["image_file"] = paths[0]
    else:
        doc["image_files"] = paths


def _send(box: Box, name: str, args: Dict[str, Any], mut: bool) -> Tuple[Optional[Result], Optional[OpenloloError]]:
    """One call: its Result, and the refusal or ask it raised (which carry
    the Result too). Other errors propagate."""
    try:
        return (box.mutate(name, args) if mut else box.call_tool(name, args)), None
    except (Refused, AskPending) as r:
        return (r.result if isinstance(r.result, Result) else None), r


class OwnerWait:
    """--wait: follows this client's ask events on openlolo_watch from
    before the first send, so a decision the owner makes at once is not
    missed."""

    def __init__(self, box: Box) -> None:
        self.box = box
        self.cursor: Optional[str] = None
        self.next(1)

    def next(self, wait_ms: int) -> None:
        """Wait up to wait_ms for ask events after the cursor and move past
        them; an expired cursor starts again from now."""
        args: Dict[str, Any] = {"wait_ms": wait_ms, "kinds": ["ask"]}
        if self.cursor:
            args["cursor"] = self.cursor
        try:
            res = self.box.call_tool("openlolo_watch", args)
        except Refused as r:
            if r.code == "CURSOR_EXPIRED":
                self.cursor = None
                return
            raise
        c = res.structured.get("cursor")
        self.cursor = c if isinstance(c, str) else None


def give_back_control(box: Box, res: Optional[Result], err: TextIO) -> None:
    """Release control after a one-shot call whose answer shows an input
    attempt (it carries dispatched), so the next client is not refused with
    CONTROL_BUSY while the lease lasts; held by another client, it is
    theirs. A failure is only reported."""
    if res is None or "dispatched" not in res.structured:
        return
    try:
        box.control("release")
    except Refused as r:
        if r.code != "CONTROL_BUSY":
            print("%s call: control was not given back (it lapses by itself after %d s): %s" % (PROG, LEASE_SECONDS, r), file=err)
    except OpenloloError as e:
        print("%s call: control was not given back (it lapses by itself after %d s): %s" % (PROG, LEASE_SECONDS, e), file=err)


def cmd_call(args: Sequence[str], out: TextIO, err: TextIO, env: Mapping[str, str]) -> None:
    fl, pos = parse_flags("call", "BOX TOOL [key=value …] [--text] [--out FILE] [--wait] [--keep-control]", [
        Flag("text", False, "print the agent text instead of the structured JSON"),
        Flag("out", "", "where to write the answer's images: FILE for one, FILE-1.jpg … FILE-N.jpg for several (openlolo_full_page); "
             "without it a screenshot or full page goes to new temp files (paths printed) and an input's observation is not saved"),
        Flag("wait", False, "when the box asks the owner first (status pending, exit 4), wait for their answer and send the call again with the same operation_id"),
        Flag("keep-control", False, "keep control after the call; by default a call gives it back when it ends, so the next client is not refused with CONTROL_BUSY"),
    ], args, err)
    if len(pos) < 2:
        raise UsageError("give a box and a tool: %s call openlolo-1a2b.local openlolo_status [key=value …]" % PROG)
    st = token_store(env)
    url = resolve_box(st, pos[0])
    box = Box(url, store=st)
    name = pos[1]
    try:
        tools = box.list_tools()
    except OpenloloError as x:
        raise client_exit(x) from None
    by_name = {t.get("name"): t for t in tools}
    tool = by_name.get(name)
    if tool is None:
        names = sorted(str(n) for n in by_name if isinstance(n, str))
        raise UsageError("the box offers no tool %s to this client; it offers: %s" % (json.dumps(name), ", ".join(names)))
    targs = typed_args(tool, pos[2:])
    mut = mutating(tool)
    res: Optional[Result] = None
    failure: Optional[OpenloloError] = None
    try:
        waiter = OwnerWait(box) if fl["wait"] else None
        res, failure = _send(box, name, targs, mut)
        told = False
        while waiter is not None and isinstance(failure, AskPending):
            if not told:
                print("Waiting for the owner: they are asked to %s at %s (Ctrl-C stops waiting; the ask stays open)."
                      % (failure.what, failure.url), file=err, flush=True)
                told = True
            try:
                waiter.next(WAIT_MS)
            except KeyboardInterrupt:
                break  # stopped waiting: still the owner's to decide
            res, failure = _send(box, name, dict(targs, operation_id=failure.operation_id), mut)
    except OpenloloError as x:
        raise client_exit(x) from None
    finally:
        if mut and not fl["keep-control"] and name != "openlolo_control":
            give_back_control(box, res, err)
    if res is None:
        assert failure is not None
        raise client_exit(failure)
    doc: Dict[str, Any] = dict(res.structured)
    save_images(fl["out"], res, doc, err)
    if fl["text"]:
        print(res.text, file=out)
    else:
        out.write(_go_json(doc, sort_keys=True).decode("utf-8"))
    if isinstance(failure, AskPending):
        print("pending: %s" % failure, file=err)
        print("  next: %s call --wait waits for the owner's answer and sends the call again" % PROG, file=err)
        raise ExitError(EXIT_PENDING, failure, quiet=True)
    if isinstance(failure, Refused):
        print("refused: %s: %s" % (failure.code, failure.message), file=err)
        for s in failure.next_steps:
            print("  next: %s" % s, file=err)
        raise ExitError(EXIT_REFUSED, failure, quiet=True)


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


def _host_port(s: str) -> str:
    import urllib.parse

    if "://" not in s:
        s = "https://" + s
    try:
        u = urllib.parse.urlsplit(s)
        port = u.port or 443
    except ValueError:
        u, port = None, 0
    if u is None or not u.hostname or u.scheme != "https":
        raise UsageError("%s is not an address like https://openlolo-ab12.local or https://192.168.1.20:8443" % json.dumps(s))
    host = u.hostname
    return ("[%s]:%d" if ":" in host else "%s:%d") % (host, port)


def cmd_fingerprint(args: Sequence[str], out: TextIO, err: TextIO) -> None:
    fl, pos = parse_flags("fingerprint", "--state DIR | https://host[:port]", [
        Flag("state", "", "state directory of a box on this machine"),
    ], args, err)
    if fl["state"] and not pos:
        path = os.path.join(fl["state"], "lan-cert.pem")
        if not os.path.exists(path):
            raise OpenloloError("no certificate in %s yet: start the box once with openlolo serve --state %s" % (fl["state"], fl["state"]))
        try:
            print_pins(out, _pem_certificate(path))
        except (OSError, ValueError, DERError) as e:
            raise OpenloloError("read %s: %s" % (path, e)) from e
        return
    if not fl["state"] and len(pos) == 1:
        addr = _host_port(pos[0])
        der = fetch_certificate("https://" + addr, 15.0)
        print_pins(out, der)
        print("These are the pins %s presents now. Trust them only if they match what the box itself shows "
              "(its console or box page)." % addr, file=err)
        return
    raise UsageError("give either --state DIR or one address https://host[:port], not both")


COMMANDS = ("pair", "call", "fingerprint")


def main(argv: Optional[Sequence[str]] = None, out: TextIO = sys.stdout, err: TextIO = sys.stderr,
         stdin: TextIO = sys.stdin, env: Optional[Mapping[str, str]] = None) -> int:
    """Run one command and return its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    env = os.environ if env is None else env
    if not args:
        _top_usage(err)
        return EXIT_USAGE
    name, rest = args[0], args[1:]
    if name in ("help", "-h", "-help", "--help"):
        _top_usage(out)
        return EXIT_OK
    if name not in COMMANDS:
        print("%s: unknown command %s\n" % (PROG, json.dumps(name)), file=err)
        _top_usage(err)
        return EXIT_USAGE
    try:
        if name == "pair":
            cmd_pair(rest, out, err, stdin, env)
        elif name == "call":
            cmd_call(rest, out, err, env)
        else:
            cmd_fingerprint(rest, out, err)
        return EXIT_OK
    except _Help:
        return EXIT_OK
    except UsageError as e:
        print("%s %s: %s" % (PROG, name, e), file=err)
        return EXIT_USAGE
    except ExitError as e:
        if not e.quiet:
            print("%s %s: %s" % (PROG, name, e), file=err)
        return e.code
    except (OpenloloError, OSError) as e:
        print("%s %s: %s" % (PROG, name, e), file=err)
        return EXIT_REFUSED
    except KeyboardInterrupt:
        print("%s %s: interrupted" % (PROG, name), file=err)
        return 130


def _top_usage(w: TextIO) -> None:
    print("usage: %s <command> [flags]\n\ncommands:" % PROG, file=w)
    print("  %-12s %s" % ("call", "call one tool on a paired box: %s call BOX TOOL key=value …" % PROG), file=w)
    print("  %-12s %s" % ("fingerprint", "print the certificate pins of a state dir or of a box at https://host:port"), file=w)
    print("  %-12s %s" % ("pair", "pair with a box: confirm its certificate, ask the owner to approve, store the grant"), file=w)
    print("\nRun %s <command> -h for a command's flags." % PROG, file=w)


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


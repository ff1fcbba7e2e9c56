"""The SDK's own PEP 517 build backend: standard library only.

pip runs it from the source tree (``backend-path`` in pyproject.toml), so
installing needs nothing from a package index, neither setuptools nor
wheel, on any Python 3.9+: ``pip install --no-index ./packages/sdk-python``
works offline in a plain venv. It reads the ``[project]`` table of
pyproject.toml (a small TOML subset: tables, strings, arrays of strings,
comments) and builds

* a wheel: the packages named in ``[tool.openlolo-build] packages`` (their
  ``.py`` files and ``py.typed``), the ``.dist-info`` with METADATA,
  entry_points.txt (``[project.scripts]``) and RECORD;
* an sdist: pyproject.toml, README, ``_build/``, the packages and tests,
  with PKG-INFO;
* an editable wheel (PEP 660): a ``.pth`` file naming the source folder.

Archive members carry a fixed time (``SOURCE_DATE_EPOCH``, else 1980-01-01),
so two builds of the same tree give the same bytes.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile
from typing import Any, Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ------------------------------------------------------------------ TOML


class TOMLError(ValueError):
    """pyproject.toml uses TOML this backend does not read."""


_KEY = r"[A-Za-z0-9_-]+|\"[^\"]*\""
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _unquote(s: str, where: str) -> str:
    m = _STRING.fullmatch(s)
    if not m:
        raise TOMLError("%s: want a \"string\", got %s" % (where, s))
    body = m.group(1)
    out: List[str] = []
    i = 0
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
    while i < len(body):
        c = body[i]
        if c == "\\":
            nxt = body[i + 1]
            if nxt not in escapes:
                raise TOMLError("%s: the escape \\%s is not supported" % (where, nxt))
            out.append(escapes[nxt])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _strip_comment(line: str) -> str:
    quoted = False
    for i, c in enumerate(line):
        if c == '"' and (i == 0 or line[i - 1] != "\\"):
            quoted = not quoted
        elif c == "#" and not quoted:
            return line[:i]
    return line


def _split_array(body: str, where: str) -> List[str]:
    items: List[str] = []
    for part in re.findall(r'"(?:[^"\\]|\\.)*"|[^,\s]+', body):
        items.append(_unquote(part, where))
    return items


def parse_toml(text: str) -> Dict[str, Any]:
    """The subset of TOML pyproject.toml uses: [tables], [dotted.tables],
    key = "string", key = ["strings", …] (over several lines too), and
    comments. Anything else raises TOMLError naming the line."""
    doc: Dict[str, Any] = {}
    table = doc
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        n = i + 1
        line = _strip_comment(lines[i]).strip()
        i += 1
        if not line:
            continue
        where = "pyproject.toml line %d" % n
        if line.startswith("["):
            if not line.endswith("]") or line.startswith("[["):
                raise TOMLError("%s: only [table] headers are supported" % where)
            table = doc
            for k in line[1:-1].split("."):
                k = k.strip().strip('"')
                nxt = table.setdefault(k, {})
                if not isinstance(nxt, dict):
                    raise TOMLError("%s: %s is not a table" % (where, k))
                table = nxt
            continue
        m = re.fullmatch(r"(%s)\s*=\s*(.*)" % _KEY, line)
        if not m:
            raise TOMLError("%s: want key = value, got %s" % (where, line))
        key, value = m.group(1).strip('"'), m.group(2).strip()
        if value.startswith("["):
            while "]" not in value or not value.rstrip().endswith("]"):
                if i >= len(lines):
                    raise TOMLError("%s: the array is not closed" % where)
                value += " " + _strip_comment(lines[i]).strip()
                i += 1
            table[key] = _split_array(value.strip()[1:-1], where)
        elif value.startswith('"'):
            table[key] = _unquote(value, where)
        elif value in ("true", "false"):
            table[key] = value == "true"
        else:
            raise TOMLError("%s: only strings, booleans and arrays of strings are supported, got %s" % (where, value))
    return doc


# -------------------------------------------------------------- the project


class Project:
    """What pyproject.toml says about the distribution."""

    def __init__(self, root: str = ROOT) -> None:
        self.root = root
        with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as f:
            doc = parse_toml(f.read())
        proj = doc.get("project")
        if not isinstance(proj, dict) or "name" not in proj or "version" not in proj:
            raise TOMLError("pyproject.toml: [project] needs name and version")
        self.project: Dict[str, Any] = proj
        self.name: str = proj["name"]
        self.version: str = proj["version"]
        tool = doc.get("tool", {}).get("openlolo-build", {})
        self.packages: List[str] = list(tool.get("packages", []))
        if not self.packages:
            raise TOMLError("pyproject.toml: [tool.openlolo-build] packages names no package")
        # the file names of wheels and sdists (PEP 427, PEP 625)
        self.dist = re.sub(r"[-_.]+", "_", self.name).lower() + "-" + self.version

    def metadata(self) -> bytes:
        """The core metadata (METADATA, PKG-INFO)."""
        p = self.project
        lic = p.get("license")
        head: List[Tuple[str, str]] = [
            ("Metadata-Version", "2.4" if isinstance(lic, str) else "2.1"),
            ("Name", self.name),
            ("Version", self.version),
        ]
        if p.get("description"):
            head.append(("Summary", p["description"]))
        if isinstance(lic, str):
            head.append(("License-Expression", lic))
        if p.get("requires-python"):
            head.append(("Requires-Python", p["requires-python"]))
        for c in p.get("classifiers", []):
            head.append(("Classifier", c))
        for d in p.get("dependencies", []):
            head.append(("Requires-Dist", d))
        body = ""
        if p.get("readme"):
            head.append(("Description-Content-Type", "text/markdown"))
            with open(os.path.join(self.root, p["readme"]), encoding="utf-8") as f:
                body = f.read()
        text = "".join("%s: %s\n" % kv for kv in head) + "\n" + body
        return text.encode("utf-8")

    def entry_points(self) -> Optional[bytes]:
        scripts = self.project.get("scripts")
        if not scripts:
            return None
        lines = ["[console_scripts]"] + ["%s = %s" % kv for kv in sorted(scripts.items())]
        return ("\n".join(lines) + "\n").encode("utf-8")

    def package_files(self) -> List[str]:
        """The packages' files, relative to root, sorted: .py and py.typed."""
        out: List[str] = []
        for pkg in self.packages:
            for dirpath, dirnames, filenames in os.walk(os.path.join(self.root, pkg)):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                for fn in sorted(filenames):
                    if fn.endswith(".py") or fn == "py.typed":
                        out.append(os.path.relpath(os.path.join(dirpath, fn), self.root))
        return sorted(out)

    def sdist_files(self) -> List[str]:
        """Everything the sdist holds besides PKG-INFO."""
        out = ["pyproject.toml"]
        if self.project.get("readme"):
            out.append(self.project["readme"])
        for extra in ("_build", "tests"):
            for dirpath, dirnames, filenames in os.walk(os.path.join(self.root, extra)):
                dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
                out.extend(os.path.relpath(os.path.join(dirpath, fn), self.root) for fn in sorted(filenames)
                           if not fn.endswith(".pyc"))
        return sorted(set(out + self.package_files()))


# ----------------------------------------------------------------- archives


def _epoch() -> int:
    return max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800)


class _Wheel:
    """A wheel being written: each member's hash goes into RECORD."""

    def __init__(self, path: str) -> None:
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.record: List[str] = []
        self.date = time.gmtime(_epoch())[:6]

    def add(self, name: str, data: bytes) -> None:
        info = zipfile.ZipInfo(name, date_time=self.date)
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        self.record.append("%s,sha256=%s,%d" % (name, digest, len(data)))

    def close(self, dist_info: str) -> None:
        name = dist_info + "/RECORD"
        self.record.append(name + ",,")
        info = zipfile.ZipInfo(name, date_time=self.date)
        info.external_attr = 0o644 << 16
        self.zip.writestr(info, "\n".join(self.record) + "\n")
        self.zip.close()


def _dist_info(p: Project, w: _Wheel, tag: str = "py3-none-any") -> str:
    di = p.dist + ".dist-info"
    w.add(di + "/METADATA", p.metadata())
    w.add(di + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: openlolo_build\nRoot-Is-Purelib: true\nTag: %s\n" % tag).encode("ascii"))
    ep = p.entry_points()
    if ep:
        w.add(di + "/entry_points.txt", ep)
    return di


def _write_metadata_dir(p: Project, directory: str) -> str:
    di = p.dist + ".dist-info"
    os.makedirs(os.path.join(directory, di), exist_ok=True)
    with open(os.path.join(directory, di, "METADATA"), "wb") as f:
        f.write(p.metadata())
    ep = p.entry_points()
    if ep:
        with open(os.path.join(directory, di, "entry_points.txt"), "wb") as f:
            f.write(ep)
    return di


def _read(p: Project, rel: str) -> bytes:
    with open(os.path.join(p.root, rel), "rb") as f:
        return f.read()


# -------------------------------------------------------- the PEP 517 hooks


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    """Nothing: the backend is the standard library."""
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    """Nothing: the backend is the standard library."""
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    """Nothing: the backend is the standard library."""
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    """The .dist-info folder pip reads before it builds."""
    return _write_metadata_dir(Project(), metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    """The same metadata as the wheel's."""
    return _write_metadata_dir(Project(), metadata_directory)


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    """The wheel, written into wheel_directory; returns its file name."""
    p = Project()
    name = p.dist + "-py3-none-any.whl"
    w = _Wheel(os.path.join(wheel_directory, name))
    for rel in p.package_files():
        w.add(rel.replace(os.sep, "/"), _read(p, rel))
    w.close(_dist_info(p, w))
    return name


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                   metadata_directory: Optional[str] = None) -> str:
    """An editable wheel (PEP 660): a .pth file puts the source folder on sys.path."""
    p = Project()
    name = p.dist + "-py3-none-any.whl"
    w = _Wheel(os.path.join(wheel_directory, name))
    w.add("_%s_editable.pth" % p.dist.split("-")[0], (p.root + "\n").encode("utf-8"))
    w.close(_dist_info(p, w))
    return name


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    """The sdist (PEP 625: name-version.tar.gz), into sdist_directory."""
    p = Project()
    name = p.dist + ".tar.gz"
    mtime = _epoch()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        members = [("PKG-INFO", p.metadata())] + [(rel, _read(p, rel)) for rel in p.sdist_files()]
        for rel, data in sorted(members):
            info = tarfile.TarInfo("%s/%s" % (p.dist, rel.replace(os.sep, "/")))
            info.size, info.mtime, info.mode = len(data), mtime, 0o644
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    with open(os.path.join(sdist_directory, name), "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=mtime) as gz:
            gz.write(buf.getvalue())
    return name

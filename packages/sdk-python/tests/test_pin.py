"""Pins and the DER walker, checked against the openssl command."""

import base64
import datetime
import hashlib
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import fakebox  # noqa: E402
from openlolo import pin as pinmod  # noqa: E402


class PinTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = fakebox.new_tempdir()
        cls.cert, _ = fakebox.make_cert(cls.dir, "openlolo-ab12")
        cls.der = fakebox.cert_der(cls.cert)

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_fingerprints_match_openssl(self) -> None:
        out = subprocess.run(["openssl", "x509", "-in", self.cert, "-noout", "-fingerprint", "-sha256"],
                             check=True, capture_output=True, text=True).stdout
        colon = out.strip().split("=", 1)[1]
        self.assertEqual(pinmod.fingerprint_colon(self.der), colon)
        self.assertEqual(pinmod.fingerprint_hex(self.der), colon.replace(":", "").lower())

    def test_spki_pin_matches_openssl(self) -> None:
        want = "sha256//" + base64.b64encode(fakebox.openssl_spki_sha256(self.cert)).decode()
        self.assertEqual(pinmod.spki_pin(self.der), want)

    def test_parse_pin_spellings(self) -> None:
        fp = pinmod.fingerprint_hex(self.der)
        spki = pinmod.spki_pin(self.der)
        cases = [
            (fp, pinmod.LEAF),
            (fp.upper(), pinmod.LEAF),
            ("  " + pinmod.fingerprint_colon(self.der) + "\n", pinmod.LEAF),
            (spki, pinmod.KEY),
        ]
        for s, kind in cases:
            with self.subTest(s=s):
                p = pinmod.parse_pin(s)
                self.assertEqual(p.kind, kind)
                self.assertTrue(p.matches(self.der))
        self.assertEqual(str(pinmod.parse_pin(fp.upper())), fp)
        self.assertEqual(str(pinmod.parse_pin(spki)), spki)

    def test_parse_pin_rejects(self) -> None:
        bad = ["", "abc", "zz" * 32, "00:11", "sha256//not-base64!", "sha256//" + base64.b64encode(b"x" * 31).decode(),
               ":".join(["0"] * 32), "0" * 63]
        for s in bad:
            with self.subTest(s=s):
                with self.assertRaises(ValueError) as cm:
                    pinmod.parse_pin(s)
                self.assertIn("openlolo:", str(cm.exception))

    def test_pin_fails_closed(self) -> None:
        other = hashlib.sha256(b"other").digest()
        self.assertFalse(pinmod.Pin(pinmod.LEAF, other).matches(self.der))
        self.assertFalse(pinmod.Pin(pinmod.KEY, other).matches(self.der))
        good = pinmod.parse_pin(pinmod.spki_pin(self.der))
        self.assertFalse(good.matches(None))
        self.assertFalse(good.matches(b""))
        self.assertFalse(good.matches(b"\x30\x03\x02\x01\x00"))  # not a certificate
        self.assertFalse(good.matches(self.der[:-1]))  # truncated
        self.assertFalse(pinmod.Pin("other", good.digest).matches(self.der))

    def test_names_and_expiry(self) -> None:
        dns, ips = pinmod.subject_names(self.der)
        self.assertEqual(dns, ["openlolo-ab12.local", "openlolo-ab12", "localhost"])
        self.assertEqual(ips, ["127.0.0.1", "::1"])
        out = subprocess.run(["openssl", "x509", "-in", self.cert, "-noout", "-enddate", "-dateopt", "iso_8601"],
                             capture_output=True, text=True)
        end = pinmod.not_after(self.der)
        if out.returncode == 0:
            self.assertTrue(out.stdout.strip().split("=", 1)[1].startswith(end.strftime("%Y-%m-%d %H:%M:%S")))
        days = (end - datetime.datetime.now(datetime.timezone.utc)).days
        self.assertIn(days, (29, 30))
        self.assertEqual(pinmod.box_name(self.der), "openlolo-ab12")
        self.assertEqual(pinmod.common_name(self.der), "openlolo-ab12")

    def test_walker_rejects_garbage(self) -> None:
        for data in [b"", b"\x30", b"\x30\x85\x00\x00\x00\x00\x01", b"\x31\x00", self.der + b"\x00", b"\x1f\x00"]:
            with self.subTest(data=data[:8]):
                with self.assertRaises(pinmod.DERError):
                    pinmod.spki_der(data)


if __name__ == "__main__":
    unittest.main()

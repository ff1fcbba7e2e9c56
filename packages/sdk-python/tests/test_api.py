"""The typed answers (openlolo.api) against the contract: the output schemas
the Go api package generates (api/testdata/tools_list.json) and the golden
answers beside it, so the Python types are checked against the wire, not
against the Go SDK."""

import dataclasses
import json
import os
import sys
import unittest
from typing import Any, Dict, List, Set, Tuple, Union, get_args, get_origin, get_type_hints

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from openlolo import api  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
TESTDATA = os.environ.get("OPENLOLO_API_TESTDATA") or os.path.join(REPO, "api", "testdata")


def load_tools() -> Dict[str, Dict[str, Any]]:
    with open(os.path.join(TESTDATA, "tools_list.json"), encoding="utf-8") as f:
        doc = json.load(f)
    return {t["name"]: t for t in doc["tools"]}


def schema_type(s: Dict[str, Any]) -> str:
    t = s.get("type", "")
    if isinstance(t, list):
        t = [x for x in t if x != "null"][0]
    return str(t)


class SchemaTest(unittest.TestCase):
    """Every member of every tool's output schema is a field of the Python
    type, of the same JSON type, and the other way round."""

    def check(self, tp: Any, s: Dict[str, Any], path: str) -> None:
        origin = get_origin(tp)
        if origin is Union:
            args = [a for a in get_args(tp) if a is not type(None)]
            self.assertEqual(len(args), 1, path)
            tp, origin = args[0], get_origin(args[0])
        st = schema_type(s)
        if origin is tuple:
            self.assertEqual(st, "array", path)
            self.check(get_args(tp)[0], s.get("items", {}), path + "[]")
        elif origin is dict or tp is Any:
            self.assertIn(st, ("object", ""), path)  # free-form JSON
        elif tp is api.Event:
            # The schema gives at most the head (tools/list's output schemas
            # are one level deep); the kind's members are beside it (the
            # golden answers check those).
            self.assertEqual(st, "object", path)
            if "properties" in s:
                self.assertEqual(sorted(s["properties"]), ["cursor", "kind", "phone", "time_ms"], path)
        elif dataclasses.is_dataclass(tp):
            self.assertEqual(st, "object", path)
            if "properties" in s:
                self.check_object(tp, s, path)
        else:
            want = {str: "string", int: "integer", float: "number", bool: "boolean"}[tp]
            self.assertEqual(st, want, path)

    def check_object(self, cls: Any, s: Dict[str, Any], path: str, skip: Tuple[str, ...] = ()) -> None:
        props: Dict[str, Any] = s.get("properties", {})
        hints = get_type_hints(cls)
        names = {f.name for f in dataclasses.fields(cls)} - set(skip)
        self.assertEqual(sorted(names), sorted(k for k in props if k not in skip), "%s: %s" % (path, cls.__name__))
        for name in names:
            self.check(hints[name], props[name], path + "." + name)

    def test_results_have_the_output_schemas_members(self) -> None:
        tools = load_tools()
        self.assertEqual(sorted(api.RESULTS), sorted(tools), "a tool without a Python result type, or the other way round")
        for name, tool in sorted(tools.items()):
            with self.subTest(tool=name):
                s = tool["outputSchema"]
                props = s["properties"]
                # The outcome: status and error always; the operation's
                # members exactly for mutating tools.
                self.assertEqual("operation_id" in props, name in api.MUTATING_TOOLS)
                want = api.outcome_members(name)
                self.assertEqual(s.get("required"), ["status"])
                hints = get_type_hints(api.Outcome)
                for n in want:
                    self.check(hints[n], props[n], name + "." + n)
                self.check_object(api.RESULTS[name], s, name, skip=want)

    def test_strict_reading_refuses_extra_and_missing_members(self) -> None:
        ok: Dict[str, Any] = {"status": "ok", "paused": True, "operation_id": "op", "dispatched": True, "state": "succeeded"}
        outcome, res = api.parse_answer("openlolo_pause", ok, strict=True)
        self.assertEqual((outcome.status, outcome.dispatched, res), ("ok", True, api.PauseResult(paused=True)))
        cases: List[Tuple[Dict[str, Any], str]] = [
            (dict(ok, surprise=1), "no member surprise"),
            ({"status": "ok"}, "paused: missing"),
            (dict(ok, paused="yes"), "paused: want true or false"),
            (dict(ok, dispatched=1), "dispatched: want true or false"),
            ({"status": "failed", "paused": True}, "a failed answer has no member paused"),
            ({"status": "failed", "error": {"code": "PAUSED", "message": "m", "retryable": False}}, "next_steps: missing"),
        ]
        for bad, problem in cases:
            with self.subTest(bad=bad):
                with self.assertRaises(api.DecodeError) as cm:
                    api.parse_answer("openlolo_pause", bad, strict=True)
                self.assertIn(problem, str(cm.exception))
        # Lenient reading (what clients do) takes what it knows.
        outcome, res = api.parse_answer("openlolo_pause", dict(ok, surprise=1))
        self.assertEqual(res, api.PauseResult(paused=True))
        _, res = api.parse_answer("openlolo_pause", {"status": "ok"})
        self.assertEqual(res, api.PauseResult(paused=False))
        with self.assertRaises(api.DecodeError):
            api.parse_answer("openlolo_pause", dict(ok, paused="yes"))

    def test_events_read_by_kind(self) -> None:
        doc = {"events": [
            {"kind": "frame", "time_ms": 5, "cursor": "c1", "seq": 3, "frame_time_ms": 4},
            {"kind": "access", "time_ms": 6, "event": "revoked"},
            {"kind": "later", "time_ms": 7, "whatever": 1},
        ], "cursor": "c3"}
        w = api.decode(api.WatchResult, doc)
        self.assertEqual(w.events[0], api.Event("frame", 5, "c1", api.FrameEvent(3, 4)))
        self.assertEqual(w.events[1].body, api.AccessEvent("revoked", 0))
        self.assertEqual((w.events[2].kind, w.events[2].body), ("later", None))
        with self.assertRaises(api.DecodeError) as cm:
            api.decode(api.WatchResult, doc, strict=True)
        self.assertIn("events[2]", str(cm.exception))
        with self.assertRaises(api.DecodeError) as cm:
            api.decode(api.WatchResult, {"events": [{"kind": "frame", "time_ms": 1, "seq": 1}], "cursor": ""}, strict=True)
        self.assertIn("frame_time_ms: missing", str(cm.exception))

    def test_frozen(self) -> None:
        f = api.decode(api.Frame, {"frame_id": "f1", "geometry_epoch": "e1"})
        with self.assertRaises(dataclasses.FrozenInstanceError):
            f.frame_id = "f2"  # type: ignore[misc]


class CodesTest(unittest.TestCase):
    def test_every_stable_code_has_its_error_class(self) -> None:
        import re

        import openlolo
        from openlolo.errors import _refused_classes

        with open(os.path.join(REPO, "api", "codes.go"), encoding="utf-8") as f:
            codes = re.findall(r'^\s*Code\w+\s+Code\s*=\s*"([A-Z_]+)"', f.read(), re.M)
        self.assertIn("FRAME_EXPIRED", codes)
        classes = _refused_classes()
        self.assertEqual(sorted(classes), sorted(codes), "Refused subclasses and api/codes.go disagree")
        for code in codes:
            with self.subTest(code=code):
                err = openlolo.errors.refused_from("openlolo_tap", {"status": "failed", "dispatched": False, "error": {
                    "code": code, "message": "m", "retryable": True, "next_steps": ["n"], "retry_after_ms": 1500}})
                self.assertIs(type(err), classes[code])
                self.assertEqual((err.code, err.retry_after, err.next_steps), (code, 1.5, ["n"]))


def golden_answers() -> List[Tuple[str, str, Dict[str, Any]]]:
    """(case, tool, structuredContent) of every golden answer: the files
    api/testdata/answers/<tool>.json, each {"ok": ..., "refused": ...}."""
    d = os.path.join(TESTDATA, "answers")
    out: List[Tuple[str, str, Dict[str, Any]]] = []
    if not os.path.isdir(d):
        return out
    for name in sorted(os.listdir(d)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(d, name), encoding="utf-8") as f:
            doc = json.load(f)
        tool = name[: -len(".json")]
        for case, sc in sorted(doc.items()):
            out.append(("%s %s" % (name, case), tool, sc))
    return out


class GoldenAnswersTest(unittest.TestCase):
    """Each golden answer reads as its tool's types exactly: no member
    missing or extra, every one of its JSON type."""

    def test_golden_answers_parse_exactly(self) -> None:
        answers = golden_answers()
        if not answers:
            self.skipTest("no golden answers in %s yet" % os.path.join(TESTDATA, "answers"))
        seen: Dict[str, Set[str]] = {"ok": set(), "failed": set()}
        for case, tool, sc in answers:
            with self.subTest(case=case):
                self.assertIn(tool, api.RESULTS)
                outcome, res = api.parse_answer(tool, sc, strict=True)
                if outcome.status == "failed":
                    self.assertIsNone(res)
                    self.assertIsNotNone(outcome.error)
                else:
                    self.assertIsInstance(res, api.RESULTS[tool])
                seen.setdefault(outcome.status, set()).add(tool)
        self.assertEqual(sorted(seen["ok"]), sorted(api.RESULTS), "tools without a golden success")
        self.assertEqual(sorted(seen["failed"]), sorted(api.RESULTS), "tools without a golden refusal")


if __name__ == "__main__":
    unittest.main()

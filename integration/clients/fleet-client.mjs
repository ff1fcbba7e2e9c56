// The official TypeScript MCP SDK (pinned in package.json) as a local
// agent of `openlolo mcp --fleet`: it spawns the fleet bridge over stdio,
// lists the phones of every paired box, calls each, and keeps calling the
// first box while the Go harness (fleet_clients_test.go) stops the other.
//
// usage: node fleet-client.mjs OPENLOLO_BIN STAYS GOES
//   STAYS, GOES: the ids of the box that keeps running and of the one the
//   harness stops. The token store is $OPENLOLO_STORE.
// Output: one line per step, "STEP <name> PASS|FAIL <detail>"; "STOP GOES"
// asks the harness to stop that box, which answers "STOPPED" on stdin.
import readline from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, stays, goes] = process.argv.slice(2);

function step(name, ok, detail) {
  console.log(`STEP ${name} ${ok ? "PASS" : "FAIL"} ${String(detail).replace(/\s+/g, " ").slice(0, 300)}`);
}
async function run(name, fn) {
  try {
    step(name, true, await fn());
  } catch (e) {
    step(name, false, e.message || e);
  }
}

const lines = readline.createInterface({ input: process.stdin });
const next = () => new Promise((resolve) => lines.once("line", resolve));

const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp", "--fleet"],
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "openlolo-fleet-check", version: "1.0.0" });
try {
  await client.connect(transport);
  step("connect", true, `server ${client.getServerVersion().name} over stdio`);
} catch (e) {
  step("connect", false, e.message || e);
  process.exit(0);
}

const sc = (r) => r.structuredContent || {};
const code = (r) => (sc(r).error || {}).code;

await run("tools", async () => {
  const { tools } = await client.listTools();
  const by = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const want of ["openlolo_phones", "openlolo_screenshot", "openlolo_tap"]) {
    if (!by[want]) throw new Error(`tools/list has no ${want}`);
  }
  if (!by.openlolo_tap.inputSchema.properties.phone) throw new Error("openlolo_tap takes no phone");
  if (!by.openlolo_watch.inputSchema.properties.box) throw new Error("openlolo_watch takes no box through the fleet");
  return `${tools.length} tools`;
});

let phones = [];
await run("phones", async () => {
  const r = await client.callTool({ name: "openlolo_phones", arguments: {} });
  phones = (sc(r).phones || []).map((p) => p.id);
  const boxes = new Set(phones.map((id) => id.split("/")[0]));
  if (r.isError || !boxes.has(stays) || !boxes.has(goes) || phones.length < 3) {
    throw new Error("not the union of both boxes' phones: " + JSON.stringify(sc(r)).slice(0, 200));
  }
  return phones.join(" ");
});

await run("phone-required", async () => {
  const r = await client.callTool({ name: "openlolo_screenshot", arguments: {} });
  const steps = (sc(r).error || {}).next_steps || [];
  if (!r.isError || code(r) !== "PHONE_REQUIRED" || !phones.every((id) => steps[0].includes(id))) {
    throw new Error(JSON.stringify(sc(r)).slice(0, 200));
  }
  return steps[0];
});

// Each phone answers for itself: a screenshot and a tap on each.
for (const id of phones) {
  await run(`route ${id}`, async () => {
    const shot = await client.callTool({ name: "openlolo_screenshot", arguments: { phone: id, max_size: 256 } });
    const f = sc(shot);
    if (shot.isError || !f.frame_id || !(shot.content || []).some((c) => c.type === "image")) {
      throw new Error("screenshot: " + JSON.stringify(f).slice(0, 200));
    }
    const tap = await client.callTool({
      name: "openlolo_tap",
      arguments: { phone: id, frame_id: f.frame_id, geometry_epoch: f.geometry_epoch, x: 0.5, y: 0.5 },
    });
    if (tap.isError || sc(tap).dispatched !== true) throw new Error("tap: " + JSON.stringify(sc(tap)).slice(0, 200));
    const st = await client.callTool({ name: "openlolo_status", arguments: { phone: id } });
    const held = ((sc(st).control || {}).you_hold);
    if (st.isError || held !== true) throw new Error("status after the tap: " + JSON.stringify(sc(st)).slice(0, 200));
    return `frame ${f.frame_id}, tap ${sc(tap).operation_id}, control held on ${id}`;
  });
}

// The box that stays is called every 700 ms (under the box's 120 calls a
// minute per client) while the other is stopped; none of its calls may
// fail.
const stayPhone = phones.find((id) => id.startsWith(stays + "/"));
const goPhone = phones.find((id) => id.startsWith(goes + "/"));
let loop = true;
const calls = { ok: 0, failed: [], afterStop: 0 };
let stopped = false;
const busy = (async () => {
  while (loop) {
    const r = await client.callTool({ name: "openlolo_status", arguments: { phone: stayPhone } });
    if (r.isError) calls.failed.push(code(r));
    else {
      calls.ok++;
      if (stopped) calls.afterStop++;
    }
    await new Promise((resolve) => setTimeout(resolve, 700));
  }
})();
console.log("STOP " + goes);
if ((await next()) !== "STOPPED") throw new Error("the harness did not stop the box");
stopped = true;

await run("stopped-box", async () => {
  const r = await client.callTool({ name: "openlolo_key", arguments: { phone: goPhone, key: "home" } });
  const e = sc(r).error || {};
  if (!r.isError || e.code !== "PHONE_UNAVAILABLE" || sc(r).dispatched !== false || !(e.next_steps || []).length) {
    throw new Error(JSON.stringify(sc(r)).slice(0, 300));
  }
  return `${e.code}: ${e.message}; next: ${e.next_steps[0]}`;
});
await run("listing-after-stop", async () => {
  const r = await client.callTool({ name: "openlolo_phones", arguments: {} });
  const ids = (sc(r).phones || []).map((p) => p.id);
  const gone = (sc(r).boxes || []).find((b) => b.id === goes) || {};
  if (r.isError || ids.some((id) => id.startsWith(goes + "/")) || !ids.includes(stayPhone) || gone.reachable !== false) {
    throw new Error(JSON.stringify(sc(r)).slice(0, 300));
  }
  return `${ids.join(" ")}; ${goes}: ${(gone.error || {}).code}`;
});
// A few more calls to the box that stays, after the stop.
for (let i = 0; calls.afterStop < 3 && i < 200; i++) await new Promise((resolve) => setTimeout(resolve, 50));
loop = false;
await busy;
await run("other-box-unhurt", async () => {
  if (calls.failed.length) throw new Error(`${calls.failed.length} of ${calls.ok + calls.failed.length} calls failed: ${calls.failed.join(" ")}`);
  return `${calls.ok} calls to ${stayPhone} all answered, ${calls.afterStop} after ${goes} stopped`;
});
await client.close();
lines.close();

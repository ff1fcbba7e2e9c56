// The official TypeScript MCP SDK (pinned in package.json) against a real
// box, with the SDK's own OAuth machinery: protected-resource and
// authorization-server discovery, dynamic client registration, PKCE, the
// code exchange and the refresh after a 401. The owner's consent is given by
// the Go harness (clients_test.go) on the box's real page: this script
// prints "AUTHORIZE <url>" where a desktop app would open a browser, and
// its loopback callback server receives the browser's redirect.
//
// usage: node sdk-client.mjs BOX_URL REGISTRATION
//   REGISTRATION: "none" (a public client, as desktop agents register) or
//   "client_secret_post" (the metadata of the SDK's own example client,
//   examples/client/simpleOAuthClient.js).
// Trust: NODE_EXTRA_CA_CERTS names the box's certificate (PEM).
// Output: one line per step, "STEP <name> PASS|FAIL <detail>".
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [box, registration] = process.argv.slice(2);
const mcpURL = new URL(box + "/mcp");

function step(name, ok, detail) {
  console.log(`STEP ${name} ${ok ? "PASS" : "FAIL"} ${String(detail).replace(/\s+/g, " ").slice(0, 300)}`);
}

// The loopback callback: the browser (here, the harness as the owner)
// lands on it with ?code=…&state=….
let gotCode;
const codeArrived = new Promise((resolve) => { gotCode = resolve; });
const server = http.createServer((req, res) => {
  const u = new URL(req.url, "http://127.0.0.1");
  if (u.pathname !== "/callback") { res.writeHead(404).end(); return; }
  res.writeHead(200, { "content-type": "text/plain" }).end("Signed in; you can close this window.");
  gotCode({ code: u.searchParams.get("code"), error: u.searchParams.get("error") });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const redirectUrl = `http://127.0.0.1:${server.address().port}/callback`;

// An in-memory provider, like the SDK example's InMemoryOAuthClientProvider.
const metadata = {
  client_name: registration === "client_secret_post" ? "Simple OAuth MCP Client" : "openlolo ts-sdk check",
  redirect_uris: [redirectUrl],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: registration,
};
const saved = { tokens: undefined, client: undefined, verifier: undefined, saves: 0 };
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() { return metadata; },
  clientInformation: () => saved.client,
  saveClientInformation: (c) => { saved.client = c; },
  tokens: () => saved.tokens,
  saveTokens: (t) => { saved.tokens = t; saved.saves++; },
  redirectToAuthorization: (u) => { console.log("AUTHORIZE " + u.toString()); },
  saveCodeVerifier: (v) => { saved.verifier = v; },
  codeVerifier: () => saved.verifier,
};

const newClient = () => new Client({ name: "openlolo-ts-sdk-check", version: "1.0.0" });
let client;
try {
  let transport = new StreamableHTTPClientTransport(mcpURL, { authProvider: provider });
  client = newClient();
  try {
    await client.connect(transport);
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
    let timer;
    const { code, error } = await Promise.race([
      codeArrived,
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error("no redirect to the callback within 60 s")), 60000); }),
    ]).finally(() => clearTimeout(timer));
    if (!code) throw new Error("the box redirected back without a code: " + error);
    await transport.finishAuth(code);
    transport = new StreamableHTTPClientTransport(mcpURL, { authProvider: provider });
    client = newClient();
    await client.connect(transport);
  }
  const method = saved.client && saved.client.token_endpoint_auth_method;
  step("connect", true, `registered ${saved.client && saved.client.client_id} (auth method ${method}), protocol ${transport.protocolVersion}`);
} catch (e) {
  step("connect", false, e.message || e);
  server.close();
  process.exit(0);
}

async function run(name, fn) {
  try {
    step(name, true, await fn());
  } catch (e) {
    step(name, false, e.message || e);
  }
}

let frame;
await run("tools", async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const want of ["openlolo_status", "openlolo_screenshot", "openlolo_tap"]) {
    if (!names.includes(want)) throw new Error(`tools/list has no ${want}: ${names.join(" ")}`);
  }
  return `${names.length} tools`;
});
await run("screenshot", async () => {
  const r = await client.callTool({ name: "openlolo_screenshot", arguments: { max_size: 512 } });
  const img = (r.content || []).find((c) => c.type === "image");
  const sc = r.structuredContent || {};
  if (r.isError || !img || !sc.frame_id || sc.geometry_epoch === undefined) {
    throw new Error("no image and frame: " + JSON.stringify(sc).slice(0, 200));
  }
  frame = sc;
  return `${img.mimeType} ${Buffer.from(img.data, "base64").length} bytes, frame ${sc.frame_id}`;
});
await run("tap", async () => {
  if (!frame) throw new Error("no frame to tap on (screenshot failed)");
  const r = await client.callTool({
    name: "openlolo_tap",
    arguments: { frame_id: frame.frame_id, geometry_epoch: frame.geometry_epoch, x: 0.5, y: 0.5 },
  });
  const sc = r.structuredContent || {};
  if (r.isError || sc.status !== "ok" || sc.dispatched !== true) throw new Error("tap: " + JSON.stringify(sc).slice(0, 200));
  const rel = await client.callTool({ name: "openlolo_control", arguments: { command: "release" } });
  if (rel.isError) throw new Error("release: " + JSON.stringify(rel.structuredContent).slice(0, 200));
  return `tapped, operation ${sc.operation_id}`;
});
await run("resources", async () => {
  const caps = client.getServerCapabilities() || {};
  if (!caps.resources || !caps.prompts) throw new Error("initialize advertises no resources or prompts: " + JSON.stringify(caps));
  const { resources } = await client.listResources();
  const uris = resources.map((r) => r.uri);
  for (const want of ["openlolo://screen", "openlolo://apps/com.apple.Maps"]) {
    if (!uris.includes(want)) throw new Error(`resources/list has no ${want}: ${uris.slice(0, 8).join(" ")}`);
  }
  const { resourceTemplates } = await client.listResourceTemplates();
  if (!resourceTemplates.some((t) => t.uriTemplate === "openlolo://apps/{bundle_id}")) {
    throw new Error("resources/templates/list: " + JSON.stringify(resourceTemplates).slice(0, 200));
  }
  const screen = await client.readResource({ uri: "openlolo://screen" });
  const c = (screen.contents || [])[0] || {};
  const jpeg = c.blob ? Buffer.from(c.blob, "base64") : Buffer.alloc(0);
  const frame = ((c._meta || {})["openlolo.mcp"] || {}).frame || {};
  if (c.mimeType !== "image/jpeg" || jpeg[0] !== 0xff || jpeg[1] !== 0xd8 || !frame.frame_id) {
    throw new Error(`openlolo://screen: ${c.mimeType}, ${jpeg.length} bytes, _meta ${JSON.stringify(c._meta || {}).slice(0, 120)}`);
  }
  const app = await client.readResource({ uri: "openlolo://apps/com.apple.Maps" });
  const profile = JSON.parse(((app.contents || [])[0] || {}).text || "{}");
  if (profile.bundle_id !== "com.apple.Maps" || !(profile.links || []).length) throw new Error("Maps profile: " + JSON.stringify(profile).slice(0, 200));
  return `${uris.length} resources, screen ${jpeg.length} bytes (frame ${frame.frame_id}), Maps profile with ${profile.links.length} links`;
});
await run("prompts", async () => {
  const { prompts } = await client.listPrompts();
  if (!prompts.some((p) => p.name === "operate_phone")) throw new Error("prompts/list: " + JSON.stringify(prompts).slice(0, 200));
  const got = await client.getPrompt({ name: "operate_phone", arguments: { goal: "open Notes" } });
  const text = ((got.messages || [])[0] || {}).content || {};
  if (text.type !== "text" || !text.text.includes("open Notes") || !text.text.includes("openlolo_find_text")) {
    throw new Error("operate_phone: " + JSON.stringify(got).slice(0, 200));
  }
  return `operate_phone: ${text.text.length} characters with the goal`;
});
await run("refresh", async () => {
  // The access token the SDK holds stops working (as at its 15-minute
  // end): the next call gets 401, and the SDK refreshes with its refresh
  // token, then retries.
  const before = saved.tokens;
  if (!before || !before.refresh_token) throw new Error("the box issued no refresh token");
  saved.tokens = { ...before, access_token: "expired-" + before.access_token.slice(0, 8) };
  const saves = saved.saves;
  const r = await client.callTool({ name: "openlolo_status", arguments: {} });
  if (r.isError) throw new Error("status after refresh: " + JSON.stringify(r.structuredContent).slice(0, 200));
  if (saved.saves === saves || saved.tokens.refresh_token === before.refresh_token || saved.tokens.access_token === before.access_token) {
    throw new Error("the call passed but no new tokens were saved");
  }
  return "401, refresh_token grant, new access and refresh token, call retried";
});
await client.close();
server.close();

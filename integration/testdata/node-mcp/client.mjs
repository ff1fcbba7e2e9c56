// Drives `openlolo mcp BOX` over stdio with the official TypeScript MCP SDK,
// as Claude Desktop, Cursor or VS Code would, and prints what it saw as JSON.
// usage: node client.mjs OPENLOLO_BIN BOX_URL   (OPENLOLO_STORE in the environment)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, box] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp", box],
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "node-e2e-agent", version: "1.0.0" });
await client.connect(transport);
const server = client.getServerVersion();
const { tools } = await client.listTools();
const shot = await client.callTool({ name: "openlolo_screenshot", arguments: { max_size: 512 } });
const image = (shot.content || []).find((c) => c.type === "image");
console.log(JSON.stringify({
  server: server && server.name,
  tools: tools.map((t) => t.name),
  isError: !!shot.isError,
  status: shot.structuredContent && shot.structuredContent.status,
  imageMime: image && image.mimeType,
  imageBytes: image ? Buffer.from(image.data, "base64").length : 0,
}));
await client.close();

#!/usr/bin/env node
// A real MCP server over stdio for the session tests (official SDK). Each execution appends one line to
// $MCP_COUNT_FILE, so a test can count how often a tool really ran across service restarts.
const { appendFileSync } = require('node:fs');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

const server = new McpServer({ name: 'echo', version: '1.0.0' });
const count = (tool, args) => process.env.MCP_COUNT_FILE && appendFileSync(process.env.MCP_COUNT_FILE, `${JSON.stringify({ tool, args })}\n`);

server.registerTool('shout', { description: 'Upper-cases a text.', inputSchema: { text: z.string().min(1) } }, async ({ text }) => {
  count('shout', { text });
  return { content: [{ type: 'text', text: text.toUpperCase() }] };
});
server.registerTool('big', { description: 'Returns n bytes of text.', inputSchema: { n: z.number().int().min(1) } }, async ({ n }) => {
  count('big', { n });
  return { content: [{ type: 'text', text: 'x'.repeat(n) }] };
});

let active = 0;
server.registerTool('sleep', { description: 'Waits ms milliseconds; reports how many calls were running.', inputSchema: { ms: z.number().int().min(0).max(5000) } }, async ({ ms }) => {
  active++;
  let most = active;
  const tick = setInterval(() => (most = Math.max(most, active)), 5);
  await new Promise((r) => setTimeout(r, ms));
  clearInterval(tick);
  active--;
  count('sleep', { ms, most });
  return { content: [{ type: 'text', text: `slept ${ms}` }] };
});

server.connect(new StdioServerTransport()).catch((e) => {
  process.stderr.write(String(e));
  process.exit(1);
});

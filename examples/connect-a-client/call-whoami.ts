import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

// MCP_SECRET: a personal MCP secret (or a JWT), for the tools that act for a user.
const url = new URL(process.env.MIROBODY_URL ?? 'http://127.0.0.1:18080/mcp');
const headers = { Authorization: `Bearer ${process.env.MCP_SECRET}` };
const client = new Client({ name: 'my-agent', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
console.log(await client.callTool({ name: 'whoami', arguments: {} }));
await client.close();

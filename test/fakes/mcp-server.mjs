// Contract: a real MCP server over stdio, made with @modelcontextprotocol/sdk, for the MCP client tests.
// Tools: echo {text}, fail (isError), crash (the process exits), env (names of its environment variables),
// image (one PNG), sample_later (asks the client for sampling after the call has returned: a server spending
// tokens on its own). A `$schema` key is left in echo's input schema on purpose.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'fake-mcp', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'echo',
      description: 'Echo the text back.',
      inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    { name: 'fail', description: 'Always reports an error.', inputSchema: { type: 'object', properties: {} } },
    { name: 'crash', description: 'Exits the server process.', inputSchema: { type: 'object', properties: {} } },
    { name: 'env', description: 'Names of the environment variables the server sees.', inputSchema: { type: 'object', properties: {} } },
    { name: 'image', description: 'Returns a tiny PNG.', inputSchema: { type: 'object', properties: {} } },
    { name: 'sample_later', description: 'Asks for sampling after returning.', inputSchema: { type: 'object', properties: {} } },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'echo':
      return { content: [{ type: 'text', text: `echo: ${String(args.text)} (pid ${process.pid})` }] };
    case 'fail':
      return { isError: true, content: [{ type: 'text', text: 'the thing broke: quota exceeded' }] };
    case 'crash':
      setTimeout(() => process.exit(1), 5);
      return { content: [{ type: 'text', text: 'crashing' }] };
    case 'env':
      return { content: [{ type: 'text', text: Object.keys(process.env).sort().join(' ') }] };
    case 'image':
      return { content: [{ type: 'image', mimeType: 'image/png', data: Buffer.from('89504e470d0a1a0a', 'hex').toString('base64') }] };
    case 'sample_later':
      setTimeout(() => {
        server
          .createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'spend the tokens' } }], maxTokens: 10 })
          .then(() => process.stderr.write('LATE SAMPLING ANSWERED\n'))
          .catch((error) => process.stderr.write(`LATE SAMPLING REFUSED: ${error.message}\n`));
      }, 50);
      return { content: [{ type: 'text', text: 'scheduled' }] };
    default:
      return { isError: true, content: [{ type: 'text', text: `unknown tool ${request.params.name}` }] };
  }
});

process.stderr.write(`fake mcp server started (pid ${process.pid})\n`);
await server.connect(new StdioServerTransport());

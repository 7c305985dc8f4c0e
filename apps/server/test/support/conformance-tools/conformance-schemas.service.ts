import type { CallToolResult } from '@modelcontextprotocol/server';
import { Arg, Injectable, McpTool } from 'mirobody';

/**
 * Tools whose point is their input schema. Both schemas are written by hand (`inputSchema`)
 * because the scenarios check keywords a generated schema never contains, and they must reach
 * `tools/list` exactly as written.
 */
@Injectable()
export class ConformanceSchemasService {
  /**
   * SEP-1613 / SEP-2106: `$schema`, `$defs` with `$anchor`, composition, conditionals and
   * `additionalProperties` must survive verbatim. Declaring the 2020-12 dialect also makes the
   * core validate the arguments with a 2020-12 validator.
   */
  @McpTool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    },
  })
  jsonSchema202012(@Arg('name', { optional: true }) name?: string, @Arg('contactMethod', { optional: true }) contactMethod?: string): CallToolResult {
    return { content: [{ type: 'text', text: `JSON Schema 2020-12 tool called with: ${JSON.stringify({ name, contactMethod })}` }] };
  }

  /**
   * SEP-2243: `region` is mirrored into an `Mcp-Param-Region` header, which the server must check
   * against the argument. Without a tool carrying `x-mcp-header` the scenario cannot run at all.
   */
  @McpTool({
    name: 'test_x_mcp_header',
    description: 'Tests SEP-2243 Mcp-Param-* server-side validation',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'mirrored into Mcp-Param-Region', 'x-mcp-header': 'Region' },
        level: { type: 'integer', description: 'non-mirrored argument' },
      },
    },
  })
  xMcpHeader(@Arg('region', { optional: true }) region?: string): CallToolResult {
    return { content: [{ type: 'text', text: `region=${region ?? '<none>'}` }] };
  }
}

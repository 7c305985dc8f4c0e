import { ApiTags } from '@nestjs/swagger';

/**
 * The OpenAPI document's tags, in the order Swagger UI shows them, each with its description. Every
 * controller takes exactly one (`@ApiTag()`), so each operation is in one group and a generated
 * client has one API class per tag. Administration is one tag whatever the area: its audience is
 * the admin role, as its routes are `/admin`'s; the area is in the operationId (`adminUsers_`,
 * `adminFiles_`, ...) rather than in five more groups.
 */
export const API_TAGS = {
  memories: 'Your long-term memories: what `remember` stored and `recall_memory` searches',
  files: 'Your files: upload, list, download, delete; and the signed links `read_file` hands out',
  fhir: 'Your health records as FHIR R4 Observations, one at a time or in Bundles',
  'care-circles': 'Care circles, the people in them, and the invitations that bring them in',
  conversations: 'Your conversations, with the titles `summarize_conversation` set',
  tasks: 'Your MCP tasks: the long tool calls that outlive their request; see and cancel them',
  tools: 'The tools you may call, as an MCP client sees them, and a way to call one to try it',
  'mcp-secrets': 'Personal MCP secrets, for clients that cannot sign in; only a JWT manages them',
  connections: 'The MCP clients you connected by signing in (OAuth): see and revoke them',
  me: 'Your account as a whole: export everything, or erase it',
  console: "The web console's sign-in: one-time links, the session behind its cookie, sign-out",
  admin: 'Administration, for the admin role: the overview, users, their memories, files and tasks, the audit trail, the tool catalog',
  oauth: 'OAuth 2.0 Protected Resource Metadata (RFC 9728): where MCP clients get their tokens',
  probes: 'Liveness and readiness probes, for load balancers and orchestrators',
} as const;

export type ApiTagName = keyof typeof API_TAGS;

/** Puts every route of a controller under one of `API_TAGS` (a name not in it does not compile). */
export const ApiTag = (name: ApiTagName): ClassDecorator => ApiTags(name);

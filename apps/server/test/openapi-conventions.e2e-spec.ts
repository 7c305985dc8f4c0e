import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TEST_JWT_SECRET } from './support/auth.js';
import { startApp, type RunningApp } from './support/test-app.js';

/**
 * Every operation's id, by `METHOD /path`. Generated clients name their methods after these, so one
 * changes only on purpose (a renamed controller method would otherwise rename it unnoticed).
 */
const OPERATION_IDS: Record<string, string> = {
  'get /api/memories': 'memories_list',
  'post /api/memories': 'memories_create',
  'get /api/memories/export': 'memories_export',
  'get /api/memories/{id}': 'memories_get',
  'get /api/memories/{id}/history': 'memories_history',
  'patch /api/memories/{id}': 'memories_update',
  'delete /api/memories/{id}': 'memories_remove',
  'post /api/files': 'files_upload',
  'post /api/files/raw': 'files_uploadRaw',
  'get /api/files': 'files_list',
  'get /api/files/{key}': 'files_get',
  'get /api/files/{key}/content': 'files_download',
  'get /api/files/{key}/text': 'files_readText',
  'post /api/files/{key}/extraction': 'files_rerunExtraction',
  'delete /api/files/{key}': 'files_delete',
  'get /files/signed/{token}': 'signedFile_download',
  'post /api/fhir/Observation': 'fhir_createObservation',
  'get /api/fhir/Observation': 'fhir_searchObservations',
  'get /api/fhir/Observation/{id}': 'fhir_readObservation',
  'get /api/fhir/Observation/{id}/_history/{versionId}': 'fhir_readObservationVersion',
  'delete /api/fhir/Observation/{id}': 'fhir_deleteObservation',
  'post /api/fhir': 'fhir_ingestBundle',
  'post /api/circles': 'careCircles_create',
  'get /api/circles': 'careCircles_list',
  'patch /api/circles/{circleId}': 'careCircles_rename',
  'delete /api/circles/{circleId}': 'careCircles_remove',
  'post /api/circles/{circleId}/invitations': 'careCircles_invite',
  'get /api/circles/{circleId}/members': 'careCircles_listMembers',
  'patch /api/circles/{circleId}/members/me': 'careCircles_updateMyMembership',
  'post /api/circles/{circleId}/leave': 'careCircles_leave',
  'patch /api/circles/{circleId}/members/{memberId}': 'careCircles_changeRole',
  'delete /api/circles/{circleId}/members/{memberId}': 'careCircles_removeMember',
  'get /api/invitations': 'invitations_list',
  'post /api/invitations/accept': 'invitations_acceptByToken',
  'post /api/invitations/decline': 'invitations_declineByToken',
  'post /api/invitations/{invitationId}/accept': 'invitations_accept',
  'post /api/invitations/{invitationId}/decline': 'invitations_decline',
  'get /api/conversations': 'conversations_list',
  'delete /api/conversations/{conversationId}': 'conversations_remove',
  'get /api/tasks': 'tasks_list',
  'post /api/tasks/{id}/cancel': 'tasks_cancel',
  'get /api/tools': 'tools_list',
  'post /api/tools/{name}/call': 'tools_call',
  'post /api/mcp-secrets': 'mcpSecrets_create',
  'get /api/mcp-secrets': 'mcpSecrets_list',
  'delete /api/mcp-secrets/{id}': 'mcpSecrets_revoke',
  'get /api/me/connections': 'connections_list',
  'delete /api/me/connections/{id}': 'connections_revoke',
  'get /api/me/export': 'me_export',
  'delete /api/me': 'me_erase',
  'get /admin/users': 'adminUsers_search',
  'get /admin/users/{id}': 'adminUsers_get',
  'post /admin/users/{id}/disable': 'adminUsers_disable',
  'post /admin/users/{id}/enable': 'adminUsers_enable',
  'delete /admin/users/{id}': 'adminUsers_erase',
  'get /admin/users/{id}/connections': 'adminUsers_connections',
  'delete /admin/users/{id}/connections/{connectionId}': 'adminUsers_revokeConnection',
  'get /admin/users/{id}/mcp-secrets': 'adminUsers_mcpSecrets',
  'delete /admin/users/{id}/mcp-secrets/{secretId}': 'adminUsers_revokeMcpSecret',
  'get /admin/users/{id}/export': 'adminUsers_export',
  'get /admin/connections': 'adminConnections_list',
  'get /admin/oauth-clients': 'adminOAuthClients_list',
  'get /admin/approvals': 'adminApprovals_list',
  'get /admin/approvals/{id}': 'adminApprovals_find',
  'get /admin/audit': 'adminAudit_list',
  'get /admin/audit/export': 'adminAudit_export',
  'get /admin/users/{userId}/memories': 'adminMemories_list',
  'get /admin/users/{userId}/memories/{id}': 'adminMemories_get',
  'get /admin/users/{userId}/memories/{id}/history': 'adminMemories_history',
  'patch /admin/users/{userId}/memories/{id}': 'adminMemories_update',
  'delete /admin/users/{userId}/memories/{id}': 'adminMemories_removeOne',
  'delete /admin/users/{userId}/memories': 'adminMemories_eraseAll',
  'get /admin/users/{userId}/files': 'adminFiles_list',
  'get /admin/users/{userId}/files/{key}': 'adminFiles_get',
  'get /admin/users/{userId}/files/{key}/content': 'adminFiles_download',
  'get /admin/users/{userId}/files/{key}/text': 'adminFiles_readText',
  'post /admin/users/{userId}/files/{key}/extraction': 'adminFiles_rerunExtraction',
  'get /admin/files': 'adminFiles_listAll',
  'get /admin/files/check': 'adminFiles_check',
  'post /admin/backup': 'adminBackup_create',
  'get /admin/overview': 'adminOverview_get',
  'get /admin/tasks': 'adminTasks_list',
  'post /admin/approvals/{id}/approve': 'adminApprovals_approve',
  'post /admin/approvals/{id}/decline': 'adminApprovals_decline',
  'post /admin/tasks/{id}/cancel': 'adminTasks_cancel',
  'delete /admin/users/{userId}/files/{key}': 'adminFiles_deleteOne',
  'delete /admin/users/{userId}/files': 'adminFiles_eraseAll',
  'get /admin/tools': 'adminTools_catalog',
  'post /console/sign-in/link': 'consoleSession_redeemLink',
  'get /api/console/session': 'consoleSession_session',
  'delete /api/console/session': 'consoleSession_signOut',
  'get /console/sign-in/methods': 'signInMethods_list',
  'get /.well-known/oauth-protected-resource': 'protectedResource_metadata',
  'get /.well-known/oauth-protected-resource/mcp': 'protectedResource_mcpMetadata',
  'get /health/live': 'health_live',
  'get /health/ready': 'health_ready',
  'get /health': 'health_check',
};

/** A resource and a verb, each a name in lower camel case: an identifier in every language a generator writes. */
const OPERATION_ID = /^[a-z][A-Za-z0-9]*_[a-z][A-Za-z0-9]*$/;

interface Operation {
  route: string;
  tags?: string[];
  summary?: string;
  operationId?: string;
}

let running: RunningApp;
let declaredTags: { name: string; description?: string }[];
let operations: Operation[];

beforeAll(async () => {
  // With the built-in authorization server, whose admin route (`/admin/oauth-clients`) exists only then; its
  // identity provider is not asked anything before a sign-in, so none needs to listen.
  running = await startApp({ JWT_SECRET: TEST_JWT_SECRET, OAUTH_MODE: 'builtin', OIDC_ISSUER: 'http://127.0.0.1:9', OIDC_CLIENT_ID: 'openapi-conventions' });
  const document = (await (await fetch(new URL('/openapi.json', running.url))).json()) as {
    tags?: { name: string; description?: string }[];
    paths: Record<string, Record<string, Omit<Operation, 'route'>>>;
  };
  declaredTags = document.tags ?? [];
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ route: `${method} ${path}`, ...operation })),
  );
}, 120_000);

afterAll(() => running?.close());

describe('the OpenAPI document', () => {
  it('declares each tag once, with a description, and files every operation under exactly one of them', () => {
    const names = declaredTags.map((tag) => tag.name);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
    expect(declaredTags.filter((tag) => !tag.description?.trim())).toEqual([]);
    const misfiled = operations.filter((operation) => operation.tags?.length !== 1 || !names.includes(operation.tags[0]!));
    expect(misfiled.map(({ route, tags }) => ({ route, tags }))).toEqual([]);
    const used = new Set(operations.map((operation) => operation.tags![0]));
    expect(names.filter((name) => !used.has(name))).toEqual([]);
  });

  it('puts every /admin route, and no other, under the admin tag', () => {
    const misfiled = operations.filter((operation) => operation.route.includes(' /admin/') !== (operation.tags![0] === 'admin'));
    expect(misfiled.map(({ route, tags }) => ({ route, tags }))).toEqual([]);
  });

  it('gives every operation a summary of one short line, without a full stop', () => {
    const unfit = operations.filter(({ summary }) => !summary || summary.length > 80 || !/^[A-Z]/.test(summary) || summary.endsWith('.'));
    expect(unfit.map(({ route, summary }) => ({ route, summary }))).toEqual([]);
  });

  it('gives every operation an id of its own that code generators take as it is', () => {
    const ids = operations.map((operation) => operation.operationId ?? '');
    expect(ids.filter((id) => !OPERATION_ID.test(id))).toEqual([]);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    expect(Object.fromEntries(operations.map(({ route, operationId }) => [route, operationId]))).toEqual(OPERATION_IDS);
  });
});

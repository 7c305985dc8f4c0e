import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DataSource } from 'typeorm';
import { ConnectionsService } from '@app/auth';
import { APPROVAL_META_KEY, DELIVERY_HEADER, SIGNATURE_HEADER } from '@app/mcp';
import { bearer, TEST_JWT_SECRET } from './support/auth.js';
import { ApprovalProbeService, ApprovalToolsModule } from './support/approval-tools.module.js';
import { eventually } from './support/files.js';
import { jsonCall } from './support/json-call.js';
import { partyOf, type Party } from './support/parties.js';
import { parsePrometheus, valueOf } from './support/prometheus.js';
import { tasksClient, type TasksClient } from './support/tasks-wire.js';
import { ERAS, startApp, type Era, type RunningApp } from './support/test-app.js';

const WEBHOOK_SECRET = 'a-webhook-secret-of-at-least-32-characters';
const METRICS_TOKEN = 'a-metrics-token-of-at-least-32-characters';
const ENV = { JWT_SECRET: TEST_JWT_SECRET, RATE_LIMIT_REQUESTS: '0', APPROVALS_APPROVER_ROLE: 'approver' };

type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, boolean> };

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

/** An official client; with `answer`, one that declares elicitation and answers every form so, noting what it was asked. */
async function clientOf(app: RunningApp, era: Era, party: Party, answer?: Answer) {
  const asked: string[] = [];
  const client = new Client(
    { name: 'approvals-e2e', version: '1.0.0' },
    { ...(era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}), capabilities: answer ? { elicitation: { form: {} } } : {} },
  );
  if (answer) {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return answer;
    });
  }
  await client.connect(new StreamableHTTPClientTransport(app.url, { requestInit: { headers: bearer(party.token) } }));
  return { client, asked };
}

/** Polls `tasks/get` until the task's status is `status`, or it ended. */
async function settled(client: TasksClient, taskId: string, status = 'completed'): Promise<Record<string, unknown>> {
  let task: Record<string, unknown> = {};
  await eventually(async () => {
    task = await client.get(taskId);
    expect(['completed', 'failed', 'cancelled', status]).toContain(task['status']);
  }, 10_000);
  return task;
}

/** The webhook's receiver: answers 500 to the first delivery of each request, then 200, keeping what came. */
function webhookReceiver() {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const delivery = request.headers[DELIVERY_HEADER];
      const first = !received.some((earlier) => earlier.headers[DELIVERY_HEADER] === delivery);
      received.push({ headers: request.headers, body });
      response.statusCode = first ? 500 : 200;
      response.end();
    });
  });
  return { server, received };
}

describe('tool approvals', () => {
  let app: RunningApp;
  let alice: Party;
  let carol: Party;
  let approver: Party;
  let admin: Party;
  let probe: ApprovalProbeService;
  const receiver = webhookReceiver();
  const tasksOf = (party: Party) => tasksClient(app.url, bearer(party.token));
  /** The pending request of the `delete_record` call with this record id, once it is written (just after the task is answered). */
  const queued = async (recordId: string): Promise<{ id: string } & Record<string, unknown>> => {
    let found: Record<string, unknown> | undefined;
    await eventually(async () => {
      const page = await jsonCall(app, 'GET', '/admin/approvals?status=pending&tool=delete_record', approver.token);
      found = (page.body.items as Record<string, unknown>[]).find((item) => (item['arguments'] as { id?: string } | null)?.id === recordId);
      expect(found).toBeDefined();
    }, 5000);
    return found as { id: string } & Record<string, unknown>;
  };
  const audit = (action: string): Promise<{ actor_id: string; target_user_id: string; detail: Record<string, unknown> }[]> =>
    app.app.get(DataSource).query('SELECT actor_id, target_user_id, detail FROM admin_audit WHERE action = $1 ORDER BY id', [action]);

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.server.address() as { port: number };
    app = await startApp(
      { ...ENV, METRICS_TOKEN, APPROVALS_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`, APPROVALS_WEBHOOK_SECRET: WEBHOOK_SECRET },
      { imports: [ApprovalToolsModule] },
    );
    probe = app.app.get(ApprovalProbeService);
    [alice, carol, approver, admin] = await Promise.all([
      partyOf(app, 'alice'),
      partyOf(app, 'carol'),
      partyOf(app, 'vera', { roles: ['approver'] }),
      partyOf(app, 'root', { roles: ['admin'] }),
    ]);
  });
  afterAll(async () => {
    await app?.close();
    receiver.server.close();
  });

  it.each(ERAS)("publishes each tool's policy in tools/list _meta (%s), and in the catalog", async (era) => {
    const { client } = await clientOf(app, era, alice);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'send_money')?._meta).toEqual({ [APPROVAL_META_KEY]: 'caller' });
    expect(tools.find((tool) => tool.name === 'delete_record')?._meta).toEqual({ [APPROVAL_META_KEY]: 'approver' });
    await client.close();
    const listed = await jsonCall(app, 'GET', '/api/tools', alice.token);
    const byName = new Map((listed.body.tools as { name: string; approval: string | null }[]).map((tool) => [tool.name, tool.approval]));
    expect([byName.get('send_money'), byName.get('delete_record'), byName.get('remember')]).toEqual(['caller', 'approver', null]);
  });

  describe('the caller policy', () => {
    it.each(ERAS)('runs the call once the caller confirms its exact arguments (%s)', async (era) => {
      const { client, asked } = await clientOf(app, era, alice, { action: 'accept', content: { confirm: true } });
      const result = await client.callTool({ name: 'send_money', arguments: { amount: 1200, to: `shop-${era}` } });
      expect(textOf(result)).toBe(`sent 1200 to shop-${era} for ${alice.id}`);
      expect(asked).toEqual([expect.stringMatching(new RegExp(`^Allow "send_money" to run with these arguments\\?\\n[^]*"to": "shop-${era}"`))]);
      await client.close();
      expect((await audit('approval.confirm')).find((entry) => JSON.stringify(entry.detail).includes('send_money'))).toMatchObject({
        actor_id: alice.id,
        detail: { tool: 'send_money', policy: 'caller', argumentsDigest: expect.stringMatching(/^sha256:[\da-f]{64}$/) },
      });
    });

    it.each(ERAS)('does not run it when the caller declines (%s)', async (era) => {
      const { client } = await clientOf(app, era, alice, { action: 'decline' });
      const result = await client.callTool({ name: 'send_money', arguments: { amount: 5, to: `declined-${era}` } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('You did not confirm the call of "send_money": it did not run');
      expect(probe.runs.some((run) => run.args['to'] === `declined-${era}`)).toBe(false);
      await client.close();
    });

    it.each(ERAS)('answers a client that can ask nobody with a tool error saying why (%s)', async (era) => {
      const { client } = await clientOf(app, era, alice);
      const result = await client.callTool({ name: 'send_money', arguments: { amount: 5, to: `unasked-${era}` } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Tool "send_money" needs your confirmation of its exact arguments before it runs, and this client can ask you neither/);
      expect(probe.runs.some((run) => run.args['to'] === `unasked-${era}`)).toBe(false);
      await client.close();
    });

    it('refuses anonymous callers, and invalid arguments before anyone is asked', async () => {
      const anonymous = new Client({ name: 'approvals-e2e', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
      await anonymous.connect(new StreamableHTTPClientTransport(app.url));
      await expect(anonymous.callTool({ name: 'send_money', arguments: { amount: 5, to: 'x' } })).rejects.toThrow(/Authentication required/);
      await anonymous.close();
      const { client, asked } = await clientOf(app, '2025-11-25', alice, { action: 'accept', content: { confirm: true } });
      expect(textOf(await client.callTool({ name: 'send_money', arguments: { amount: 0, to: 'x' } }))).toMatch(/^Invalid arguments for tool "send_money"/);
      expect(asked).toEqual([]);
      await client.close();
    });

    it('asks in an input_required task over the tasks wire, and runs once the caller answers', async () => {
      const wire = tasksOf(alice);
      const { taskId } = (await wire.call('send_money_later', { amount: 7, to: 'tasked' })) as { taskId: string };
      const waiting = await settled(wire, taskId, 'input_required');
      const [[key, request]] = Object.entries(waiting['inputRequests'] as Record<string, { params: { message: string } }>);
      expect(request!.params.message).toMatch(/^Allow "send_money_later" to run/);
      await wire.update(taskId, { [key!]: { action: 'accept', content: { confirm: true } } });
      const done = await settled(wire, taskId);
      expect(textOf(done['result'])).toBe(`sent 7 to tasked for ${alice.id}`);
    });

    it('is never run by a REST call, which cannot ask', async () => {
      const called = await jsonCall(app, 'POST', '/api/tools/send_money/call', alice.token, { arguments: { amount: 5, to: 'rest' } });
      expect(JSON.stringify(called.body)).toContain('runs only after your confirmation');
      expect(probe.runs.some((run) => run.args['to'] === 'rest')).toBe(false);
    });
  });

  describe('the approver policy', () => {
    it('parks the call in a task until an approver approves; it then runs once, as the caller, and tasks/get has the result', async () => {
      const wire = tasksOf(alice);
      const created = await wire.call('delete_record', { id: 'r-approved' });
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = created['taskId'] as string;
      const task = await wire.get(taskId);
      expect(task['statusMessage']).toMatch(/^Waiting for an approver: approval request [\da-f-]{36}$/);
      const requestId = (task['statusMessage'] as string).split(' ').pop()!;
      expect(await queued('r-approved')).toMatchObject({
        id: requestId,
        requestedBy: { userId: alice.id, email: alice.email },
        arguments: { id: 'r-approved' },
        inTask: true,
        status: 'pending',
      });
      // Only approvers read or decide; nobody decides their own.
      expect((await jsonCall(app, 'GET', '/admin/approvals', carol.token)).status).toBe(403);
      expect((await jsonCall(app, 'POST', `/admin/approvals/${requestId}/approve`, carol.token, {})).status).toBe(403);
      expect((await jsonCall(app, 'POST', `/admin/approvals/${requestId}/approve`, alice.token, {})).status).toBe(403);
      expect((await jsonCall(app, 'POST', `/admin/approvals/${requestId}/approve`, undefined, {})).status).toBe(401);
      expect(probe.runsOf('delete_record', 'r-approved')).toBe(0);

      const approved = await jsonCall(app, 'POST', `/admin/approvals/${requestId}/approve`, approver.token, { reason: 'ticket 42' });
      expect(approved).toMatchObject({ status: 200, body: { status: 'approved', arguments: null, decidedBy: { userId: approver.id }, reason: 'ticket 42' } });
      const done = await settled(wire, taskId);
      expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: `deleted r-approved for ${alice.id}` }] } });
      // A replayed approval finds nothing to decide, and the tool ran once.
      expect((await jsonCall(app, 'POST', `/admin/approvals/${requestId}/approve`, admin.token, {})).status).toBe(409);
      expect(probe.runsOf('delete_record', 'r-approved')).toBe(1);
      const [row] = await app.app.get(DataSource).query('SELECT sealed_arguments, arguments_digest, outcome FROM mcp_approvals WHERE id = $1', [requestId]);
      expect(row).toEqual({ sealed_arguments: null, arguments_digest: expect.stringMatching(/^sha256:/), outcome: 'ok' });
      expect((await audit('approval.approve')).find((entry) => entry.detail['requestId'] === requestId)).toMatchObject({
        actor_id: approver.id,
        target_user_id: alice.id,
        detail: { reason: 'ticket 42', tool: 'delete_record' },
      });
      expect((await audit('approval.run')).find((entry) => entry.detail['requestId'] === requestId)).toMatchObject({
        actor_id: alice.id,
        detail: { outcome: 'ok' },
      });
    });

    it('keeps the arguments encrypted while the request waits', async () => {
      const wire = tasksOf(alice);
      const { taskId } = (await wire.call('delete_record', { id: 'a-very-personal-record' })) as { taskId: string };
      const { id } = await queued('a-very-personal-record');
      const [row] = await app.app.get(DataSource).query('SELECT id, sealed_arguments FROM mcp_approvals WHERE id = $1', [id]);
      expect(row.sealed_arguments).toMatch(/^v1\./);
      expect(row.sealed_arguments).not.toContain('personal');
      await jsonCall(app, 'POST', `/admin/approvals/${row.id}/decline`, admin.token, { reason: 'not today' });
      await settled(wire, taskId);
    });

    it('ends the task with isError and the reason when an approver declines; a decline needs a reason', async () => {
      const wire = tasksOf(alice);
      const { taskId } = (await wire.call('delete_record', { id: 'r-declined' })) as { taskId: string };
      const request = await queued('r-declined');
      const refused = await jsonCall(app, 'POST', `/admin/approvals/${request.id}/decline`, approver.token, {});
      expect(refused).toMatchObject({ status: 400, body: { message: expect.stringContaining('reason') } });
      expect((await jsonCall(app, 'POST', `/admin/approvals/${request.id}/decline`, approver.token, { reason: 'wrong record' })).status).toBe(200);
      const done = await settled(wire, taskId);
      expect(done).toMatchObject({ status: 'completed', result: { isError: true } });
      expect(textOf(done['result'])).toBe(`The call of "delete_record" was declined by ${approver.email} (approval request ${request.id}): wrong record`);
      expect(probe.runsOf('delete_record', 'r-declined')).toBe(0);
    });

    it('ends the task with isError when nobody decides in time', async () => {
      const wire = tasksOf(alice);
      const { taskId } = (await wire.call('delete_record', { id: 'r-expired' })) as { taskId: string };
      const request = await queued('r-expired');
      // As if APPROVALS_TIMEOUT had passed.
      await app.app.get(DataSource).query("UPDATE mcp_approvals SET expires_at = now() - interval '1 second' WHERE id = $1", [request.id]);
      const done = await settled(wire, taskId);
      expect(textOf(done['result'])).toBe(`The call of "delete_record" did not run: no approver decided it in time (approval request ${request.id})`);
      expect((await jsonCall(app, 'POST', `/admin/approvals/${request.id}/approve`, approver.token, {})).status).toBe(409);
      expect((await audit('approval.expire')).some((entry) => entry.detail['requestId'] === request.id)).toBe(true);
      expect(probe.runsOf('delete_record', 'r-expired')).toBe(0);
    });

    it('withdraws the request when the caller cancels the task', async () => {
      const wire = tasksOf(alice);
      const { taskId } = (await wire.call('delete_record', { id: 'r-cancelled' })) as { taskId: string };
      const request = await queued('r-cancelled');
      await wire.cancel(taskId);
      await eventually(async () => expect((await jsonCall(app, 'GET', `/admin/approvals/${request.id}`, approver.token)).body.status).toBe('cancelled'), 5000);
    });

    it('refuses at run time a call whose credential was revoked before the approval', async () => {
      const created = await jsonCall(app, 'POST', '/api/mcp-secrets', alice.token, { label: 'agent' });
      expect(created.status).toBe(201);
      const wire = tasksClient(app.url, bearer(created.body.secret as string));
      const { taskId } = (await wire.call('delete_record', { id: 'r-revoked' })) as { taskId: string };
      const request = await queued('r-revoked');
      expect((await jsonCall(app, 'DELETE', `/api/mcp-secrets/${created.body.id as string}`, alice.token)).status).toBe(204);
      await jsonCall(app, 'POST', `/admin/approvals/${request.id}/approve`, approver.token, {});
      const done = await settled(tasksOf(alice), taskId);
      expect(textOf(done['result'])).toBe(
        `The call of "delete_record" was approved (request ${request.id}), but it may no longer run: the MCP secret you called with was revoked or expired`,
      );
      expect(probe.runsOf('delete_record', 'r-revoked')).toBe(0);
      expect((await jsonCall(app, 'GET', `/admin/approvals/${request.id}`, approver.token)).body).toMatchObject({ outcome: 'refused' });
    });

    it.each(ERAS)('answers a client without tasks with the request id; once approved, the same call runs once (%s)', async (era) => {
      const { client } = await clientOf(app, era, alice);
      const args = { id: `r-untasked-${era}` };
      const first = await client.callTool({ name: 'delete_record', arguments: args });
      expect(first.isError).toBe(true);
      const id = /approval request ([\da-f-]{36}) is pending/.exec(textOf(first))![1]!;
      expect(textOf(first)).toContain(`/admin/approvals/${id}/approve`);
      // Asked again before a decision, it names the same request.
      expect(textOf(await client.callTool({ name: 'delete_record', arguments: args }))).toContain(id);
      expect((await jsonCall(app, 'POST', `/admin/approvals/${id}/approve`, admin.token, {})).body).toMatchObject({ status: 'approved', inTask: false });
      expect(textOf(await client.callTool({ name: 'delete_record', arguments: args }))).toBe(`deleted ${args.id} for ${alice.id}`);
      // The approval is spent: the next call waits anew.
      expect(textOf(await client.callTool({ name: 'delete_record', arguments: args }))).toMatch(/^Tool "delete_record" waits for an approver/);
      expect(probe.runsOf('delete_record', args.id)).toBe(1);
      await client.close();
    });

    it('never lets an approver decide their own request', async () => {
      const { taskId } = (await tasksOf(approver).call('delete_record', { id: 'r-own' })) as { taskId: string };
      const request = await queued('r-own');
      const own = await jsonCall(app, 'POST', `/admin/approvals/${request.id}/approve`, approver.token, {});
      expect(own).toMatchObject({ status: 403, body: { message: 'You cannot decide your own approval request: another approver must' } });
      await tasksOf(approver).cancel(taskId);
    });

    it('pages the requests newest first, and filters them by user and tool', async () => {
      const first = await jsonCall(app, 'GET', `/admin/approvals?limit=2&userId=${alice.id}&tool=delete_record`, approver.token);
      expect(first.body.items).toHaveLength(2);
      const second = await jsonCall(
        app,
        'GET',
        `/admin/approvals?limit=2&userId=${alice.id}&tool=delete_record&cursor=${first.body.nextCursor as string}`,
        approver.token,
      );
      const all = [...first.body.items, ...second.body.items] as { id: string; requestedAt: string; requestedBy: { userId: string } }[];
      expect(new Set(all.map((item) => item.id)).size).toBe(all.length);
      expect(all.map((item) => item.requestedAt)).toEqual([...all.map((item) => item.requestedAt)].sort().reverse());
      expect(all.every((item) => item.requestedBy.userId === alice.id)).toBe(true);
      expect((await jsonCall(app, 'GET', '/admin/approvals?cursor=forged', approver.token)).status).toBe(400);
    });

    it('answers unknown, malformed and foreign ids and bad filters with 4xx', async () => {
      expect((await jsonCall(app, 'GET', '/admin/approvals/00000000-0000-4000-8000-000000000000', approver.token)).status).toBe(404);
      expect((await jsonCall(app, 'GET', '/admin/approvals/nope', approver.token)).status).toBe(400);
      expect((await jsonCall(app, 'GET', '/admin/approvals?status=maybe', approver.token)).status).toBe(400);
      expect((await jsonCall(app, 'POST', '/admin/approvals/00000000-0000-4000-8000-000000000000/approve', approver.token, { reason: 42 })).status).toBe(400);
    });

    it('announces each request to the webhook, signed, and retries a failed delivery', async () => {
      await eventually(() => {
        const delivered = new Map<string, number>();
        for (const { headers } of receiver.received)
          delivered.set(headers[DELIVERY_HEADER] as string, (delivered.get(headers[DELIVERY_HEADER] as string) ?? 0) + 1);
        expect({ retried: [...delivered.values()].some((attempts) => attempts >= 2), received: receiver.received.length }).toMatchObject({ retried: true });
      }, 10_000);
      for (const { headers, body } of receiver.received) {
        const [, timestamp, signature] = /^t=(\d+),v1=([\da-f]{64})$/.exec(headers[SIGNATURE_HEADER] as string)!;
        expect(signature).toBe(createHmac('sha256', WEBHOOK_SECRET).update(`${timestamp}.${body}`).digest('hex'));
        const announced = JSON.parse(body);
        expect(announced).toMatchObject({ type: 'approval.requested', id: headers[DELIVERY_HEADER], tool: 'delete_record' });
        expect([alice.id, approver.id]).toContain(announced.requestedBy.userId);
        expect(body).not.toContain('r-approved');
      }
    });

    it("puts a user's requests in their export, without the arguments, and erases them with the user", async () => {
      const dora = await partyOf(app, 'dora');
      await tasksOf(dora).call('delete_record', { id: 'r-of-dora' });
      const request = await queued('r-of-dora');
      const exported = await jsonCall(app, 'GET', '/api/me/export', dora.token);
      expect(exported.body.parts.approvals).toEqual([expect.objectContaining({ id: request.id, tool: 'delete_record', status: 'pending' })]);
      expect(JSON.stringify(exported.body.parts.approvals)).not.toContain('r-of-dora');
      expect((await jsonCall(app, 'DELETE', `/admin/users/${dora.id}`, admin.token)).status).toBe(204);
      expect(await app.app.get(DataSource).query('SELECT id FROM mcp_approvals WHERE user_id = $1', [dora.id])).toEqual([]);
      expect((await jsonCall(app, 'GET', `/admin/approvals/${request.id}`, approver.token)).status).toBe(404);
      expect(probe.runsOf('delete_record', 'r-of-dora')).toBe(0);
    });

    it('counts pending requests and the time to each decision in the metrics', async () => {
      const metrics = parsePrometheus(await (await fetch(new URL('/metrics', app.url), { headers: bearer(METRICS_TOKEN) })).text());
      expect(valueOf(metrics, 'mcp_approvals_pending')).toBeGreaterThanOrEqual(0);
      expect(valueOf(metrics, 'mcp_approval_decision_seconds_count', { decision: 'approved' })).toBeGreaterThanOrEqual(1);
      expect(valueOf(metrics, 'mcp_approval_decision_seconds_count', { decision: 'declined' })).toBeGreaterThanOrEqual(1);
    });
  });
});

describe('tool approvals, for a caller whose connection grants scopes', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp(
      { ...ENV, OAUTH_MODE: 'builtin', OIDC_ISSUER: 'http://127.0.0.1:9/', OIDC_CLIENT_ID: 'mirobody', OAUTH_ALLOW_INSECURE_DEV: 'true' },
      { imports: [ApprovalToolsModule] },
    );
  });
  afterAll(() => app?.close());

  it("refuses at run time a call whose connection no longer grants the tool's scope", async () => {
    const alice = await partyOf(app, 'alice');
    const approver = await partyOf(app, 'vera', { roles: ['approver'] });
    const issuer = app.url.origin;
    const { connectionId, tokens } = await app.app.get(ConnectionsService).connect({
      userId: alice.id,
      clientId: 'https://agent.example.com/client-metadata',
      clientName: 'Agent',
      clientVerified: true,
      scopes: ['records:write'],
      resource: `${issuer}/mcp`,
      issuer,
    });
    const wire = tasksClient(app.url, bearer(tokens.access_token));
    const { taskId } = (await wire.call('purge_record', { id: 'r-scoped' })) as { taskId: string };
    let id = '';
    await eventually(async () => {
      const page = await jsonCall(app, 'GET', '/admin/approvals?status=pending&tool=purge_record', approver.token);
      id = (page.body.items as { id: string }[])[0]!.id;
    }, 5000);
    // The scope is taken from the grant while the call waits (as a narrower consent would leave it).
    await app.app.get(DataSource).query("UPDATE oauth_connections SET scope = 'memory:read' WHERE id = $1", [connectionId]);
    expect((await jsonCall(app, 'POST', `/admin/approvals/${id}/approve`, approver.token, {})).status).toBe(200);
    let task: Record<string, unknown> = {};
    await eventually(async () => {
      task = await tasksClient(app.url, bearer(alice.token)).get(taskId);
      expect(task['status']).toBe('completed');
    }, 5000);
    expect(textOf(task['result'])).toBe(
      `The call of "purge_record" was approved (request ${id}), but it may no longer run: your credential no longer grants the scopes it needs (records:write)`,
    );
    expect(app.app.get(ApprovalProbeService).runsOf('purge_record', 'r-scoped')).toBe(0);
  });
});

describe('tool approvals past APPROVALS_TIMEOUT', () => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({ ...ENV, APPROVALS_TIMEOUT: '1' }, { imports: [ApprovalToolsModule] });
  });
  afterAll(() => app?.close());

  it('expires a request nobody decides, and the waiting task ends with isError saying so', async () => {
    const alice = await partyOf(app, 'alice');
    const wire = tasksClient(app.url, bearer(alice.token));
    const { taskId } = (await wire.call('delete_record', { id: 'r-timed-out' })) as { taskId: string };
    const done = await settled(wire, taskId);
    expect(done).toMatchObject({ status: 'completed', result: { isError: true } });
    expect(textOf(done['result'])).toMatch(/^The call of "delete_record" did not run: no approver decided it in time \(approval request [\da-f-]{36}\)$/);
    expect(app.app.get(ApprovalProbeService).runsOf('delete_record', 'r-timed-out')).toBe(0);
  });
});

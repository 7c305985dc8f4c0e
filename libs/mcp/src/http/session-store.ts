import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Server } from '@modelcontextprotocol/server';
import type { InstanceBroadcast, PurposeSigner } from '@app/common';
import { ANONYMOUS_CALLER } from '../caller.js';

/** Who opens a session: `owner` alone may use it (`callerKey`); `quotaKey` counts it (the user, or an anonymous caller's address). */
export interface SessionBinding {
  owner: string;
  quotaKey: string;
}

interface Session extends SessionBinding {
  transport: NodeStreamableHTTPServerTransport;
  server: Server;
  /** Its transport answers with JSON bodies rather than SSE streams. */
  jsonResponse: boolean;
  lastSeen: number;
  expiresAt: number;
}

export interface SessionStoreOptions {
  idleMs: number;
  maxSessions: number;
  /** Most live sessions one user, or one address without a credential, may hold. */
  maxSessionsPerCaller: number;
  /** A session id is refused everywhere this long after it was issued, however busy the session. */
  maxAgeMs: number;
  /** Signs session ids (`Signer.forPurpose('mcp-session')`). */
  signer: PurposeSigner;
  /** Tells the other instances of a deployment which sessions were deleted, and hears theirs. */
  broadcast?: Pick<InstanceBroadcast, 'shared' | 'publish' | 'subscribe'>;
}

/** Too many sessions for one caller: answered with 429. */
export class SessionQuotaExceeded extends Error {}

/** How long a terminated id keeps answering 404 instead of being served statelessly (unless it expires sooner). */
const TERMINATED_MEMORY_MS = 60 * 60 * 1000;

/** The broadcast topic of deleted sessions' ids. */
const DELETED_TOPIC = 'mcp-session-deleted';

/** A session id's parts (`nonce.expiry.signature`), or undefined for anything else. */
function idParts(id: string): { nonce: string; expiry: string; signature: string; expiresAt: number } | undefined {
  const [nonce, expiry, signature, ...rest] = id.split('.');
  if (!nonce || !expiry || !signature || rest.length) return undefined;
  const expiresAt = parseInt(expiry, 36);
  return Number.isNaN(expiresAt) ? undefined : { nonce, expiry, signature, expiresAt };
}

/**
 * 2025-revision sessions: one SDK `Server` and transport each, closed when idle, when too old, and
 * beyond a maximum count. Ids are signed together with their expiry and the caller who opened them
 * (the caller is not written in the id, only bound into its signature): another instance behind
 * the same load balancer can tell a live session of ours, opened by this very caller, from a
 * forged, expired or borrowed one, and still answer its stateless requests.
 *
 * Sessions opened without a credential are kept apart from users' ones: beyond the maximum count
 * anonymous sessions are closed first, so a flood of anonymous `initialize` calls cannot evict
 * users, and each caller holds at most `maxSessionsPerCaller`.
 *
 * A session its client DELETEs is refused from then on: here, and with a `broadcast` shared by the
 * instances (`REDIS_URL`) on every instance that hears of it, which also closes the session where
 * it lives. Without one, the other instances serve the id statelessly until it expires.
 */
export class SessionStore {
  private readonly logger = new Logger('McpSessions');
  /** Insertion order is recency order: a touched session is moved to the end. */
  private readonly anonymousSessions = new Map<string, Session>();
  private readonly userSessions = new Map<string, Session>();
  /** Live sessions plus `initialize` calls in flight, per quota key. */
  private readonly perCaller = new Map<string, number>();
  private readonly terminated = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly stopHearing?: () => void;

  constructor(
    private readonly options: SessionStoreOptions,
    private readonly createServer: () => Server,
  ) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(1000, Math.min(options.idleMs / 4, 60_000)));
    this.sweeper.unref();
    this.stopHearing = options.broadcast?.subscribe(DELETED_TOPIC, (id) => this.deletedElsewhere(id));
  }

  /** Whether a DELETE reaches the other instances, one of which may hold the session. */
  get deletesReachEveryInstance(): boolean {
    return this.options.broadcast?.shared === true;
  }

  get size(): number {
    return this.anonymousSessions.size + this.userSessions.size;
  }

  /** The live session with this id opened by `owner`, marked as just used; another caller's is not found. */
  get(id: string, owner: string): Session | undefined {
    const pool = this.poolOf(owner);
    const session = pool.get(id);
    if (!session || session.owner !== owner || session.expiresAt <= Date.now()) return undefined;
    session.lastSeen = Date.now();
    pool.delete(id);
    pool.set(id, session);
    return session;
  }

  /** True for an unexpired id this deployment issued to `owner` and nobody terminated here. */
  isIssuedTo(id: string, owner: string): boolean {
    const parts = idParts(id);
    if (!parts || this.terminated.has(id)) return false;
    if (!this.options.signer.checkMac(`${parts.nonce}.${parts.expiry}.${owner}`, parts.signature)) return false;
    return parts.expiresAt > Date.now();
  }

  /**
   * A session its client DELETEs, here (the SDK answered and closes it) or on another instance:
   * refused here from now on, and told to the other instances, which close it if it lives there.
   * The caller checked that the session is the client's.
   */
  delete(id: string): void {
    this.forget(id);
    this.refuse(id);
    this.options.broadcast?.publish(DELETED_TOPIC, id);
  }

  /**
   * Answers an `initialize` request with a new session bound to `binding`; it joins the store
   * once the SDK assigns its id. Throws `SessionQuotaExceeded` when the caller holds too many.
   */
  async initialize(binding: SessionBinding, request: IncomingMessage, response: ServerResponse, body: unknown, { jsonResponse = false } = {}): Promise<void> {
    const held = this.perCaller.get(binding.quotaKey) ?? 0;
    if (held >= this.options.maxSessionsPerCaller) throw new SessionQuotaExceeded(`At most ${this.options.maxSessionsPerCaller} sessions per caller`);
    // Counted from now, so that simultaneous `initialize` calls cannot all pass the check.
    this.count(binding.quotaKey, +1);
    try {
      const transport = await this.open(binding, jsonResponse);
      await transport.handleRequest(request, response, body);
    } finally {
      this.count(binding.quotaKey, -1);
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    this.stopHearing?.();
    const sessions = [...this.anonymousSessions.values(), ...this.userSessions.values()];
    this.anonymousSessions.clear();
    this.userSessions.clear();
    await Promise.allSettled(sessions.map((session) => session.server.close()));
  }

  /** A transport for an `initialize` request, answering with JSON bodies only when asked. */
  private async open(binding: SessionBinding, jsonResponse: boolean): Promise<NodeStreamableHTTPServerTransport> {
    const server = this.createServer();
    const expiresAt = Date.now() + this.options.maxAgeMs;
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      enableJsonResponse: jsonResponse,
      sessionIdGenerator: () => this.newId(binding.owner, expiresAt),
      onsessioninitialized: (id) => this.add(id, { ...binding, transport, server, jsonResponse, lastSeen: Date.now(), expiresAt }),
      // A DELETE, answered by the SDK, which closes the transport itself.
      onsessionclosed: (id) => this.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.forget(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  }

  private poolOf(owner: string): Map<string, Session> {
    return owner === ANONYMOUS_CALLER ? this.anonymousSessions : this.userSessions;
  }

  private count(quotaKey: string, delta: number): void {
    const held = (this.perCaller.get(quotaKey) ?? 0) + delta;
    if (held > 0) this.perCaller.set(quotaKey, held);
    else this.perCaller.delete(quotaKey);
  }

  private add(id: string, session: Session): void {
    this.poolOf(session.owner).set(id, session);
    this.count(session.quotaKey, +1);
    while (this.size > this.options.maxSessions) {
      // Anonymous sessions go first: nobody can be locked out by sessions others open for free.
      const pool = this.anonymousSessions.size ? this.anonymousSessions : this.userSessions;
      const [oldest] = pool.keys();
      this.logger.warn(
        `Session limit ${this.options.maxSessions} reached; closing the least recently used ${pool === this.anonymousSessions ? 'anonymous' : "user's"} session`,
      );
      this.close(oldest!);
    }
  }

  private find(id: string): Session | undefined {
    return this.anonymousSessions.get(id) ?? this.userSessions.get(id);
  }

  private forget(id: string): void {
    const session = this.find(id);
    if (!session) return;
    this.poolOf(session.owner).delete(id);
    this.count(session.quotaKey, -1);
    this.refuse(id);
  }

  /** Refuses `id` for as long as terminated ids are remembered, or until it expires and its signature refuses it anyway. */
  private refuse(id: string): void {
    const expiresAt = idParts(id)?.expiresAt;
    if (expiresAt === undefined) return;
    const until = Math.min(Date.now() + TERMINATED_MEMORY_MS, expiresAt);
    if (until > Date.now()) this.terminated.set(id, until);
  }

  /** A session another instance deleted (or this one, heard again): closed if it lives here, its id refused. */
  private deletedElsewhere(id: string): void {
    this.close(id);
    this.refuse(id);
  }

  private close(id: string): void {
    const session = this.find(id);
    this.forget(id);
    void session?.server.close().catch((error: Error) => this.logger.warn(`Closing session failed: ${error.message}`));
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const pool of [this.anonymousSessions, this.userSessions]) {
      for (const [id, session] of pool) {
        if (now - session.lastSeen > this.options.idleMs || session.expiresAt <= now) this.close(id);
      }
    }
    for (const [id, expiry] of this.terminated) {
      if (expiry < now) this.terminated.delete(id);
    }
  }

  /** `nonce.expiry.signature`, the signature covering the owner too. */
  private newId(owner: string, expiresAt: number): string {
    const nonce = randomBytes(18).toString('base64url');
    const expiry = expiresAt.toString(36);
    return `${nonce}.${expiry}.${this.options.signer.mac(`${nonce}.${expiry}.${owner}`)}`;
  }
}

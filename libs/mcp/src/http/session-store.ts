import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { Server } from '@modelcontextprotocol/server';
import type { PurposeSigner } from '@app/common';

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
}

export interface SessionStoreOptions {
  idleMs: number;
  maxSessions: number;
  /** Signs session ids (`Signer.forPurpose('mcp-session')`). */
  signer: PurposeSigner;
}

/** How long a terminated id keeps answering 404 instead of being served statelessly. */
const TERMINATED_MEMORY_MS = 60 * 60 * 1000;

/**
 * 2025-revision sessions: one SDK `Server` and transport each, closed when idle and beyond a
 * maximum count. Ids are signed, so another instance behind the same load balancer can tell a
 * session of ours from a forged one and still answer its stateless requests.
 */
export class SessionStore {
  private readonly logger = new Logger('McpSessions');
  /** Insertion order is recency order: a touched session is moved to the end. */
  private readonly sessions = new Map<string, Session>();
  private readonly terminated = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly options: SessionStoreOptions,
    private readonly createServer: () => Server,
  ) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(1000, Math.min(options.idleMs / 4, 60_000)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The live session with this id, marked as just used. */
  get(id: string): Session | undefined {
    const session = this.sessions.get(id);
    if (!session) return undefined;
    session.lastSeen = Date.now();
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session;
  }

  /** True for an id this deployment issued and nobody terminated here. */
  isIssuedByUs(id: string): boolean {
    const [nonce, signature] = id.split('.');
    if (!nonce || !signature || this.terminated.has(id)) return false;
    return this.options.signer.checkMac(nonce, signature);
  }

  /** A transport for an `initialize` request; it joins the store once the SDK assigns its id. */
  async open(): Promise<NodeStreamableHTTPServerTransport> {
    const server = this.createServer();
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => this.newId(),
      onsessioninitialized: (id) => this.add(id, { transport, server, lastSeen: Date.now() }),
      onsessionclosed: (id) => this.forget(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.forget(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map((session) => session.server.close()));
  }

  private add(id: string, session: Session): void {
    this.sessions.set(id, session);
    while (this.sessions.size > this.options.maxSessions) {
      const [oldest] = this.sessions.keys();
      this.logger.warn(`Session limit ${this.options.maxSessions} reached; closing the least recently used session`);
      this.close(oldest);
    }
  }

  private forget(id: string): void {
    if (!this.sessions.delete(id)) return;
    this.terminated.set(id, Date.now() + TERMINATED_MEMORY_MS);
  }

  private close(id: string): void {
    const session = this.sessions.get(id);
    this.forget(id);
    void session?.server.close().catch((error: Error) => this.logger.warn(`Closing session failed: ${error.message}`));
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const [id, session] of this.sessions) {
      if (now - session.lastSeen > this.options.idleMs) this.close(id);
    }
    for (const [id, expiry] of this.terminated) {
      if (expiry < now) this.terminated.delete(id);
    }
  }

  private newId(): string {
    const nonce = randomBytes(18).toString('base64url');
    return `${nonce}.${this.options.signer.mac(nonce)}`;
  }
}

import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { describeError } from './error-log.js';
import { closeRedis, connectRedis } from './redis.js';

/**
 * Channels are named `mirobody:broadcast:<topic>`. Redis's pub/sub ignores the database number, so
 * deployments sharing one Redis server hear each other: listeners get ids they do not know, which
 * they must take in their stride.
 */
const CHANNEL_PREFIX = 'mirobody:broadcast:';

export type BroadcastListener = (message: string) => void;

/**
 * Tells the other instances of a deployment what this one did to state each of them keeps in
 * memory (an MCP session deleted, a user erased), over Redis pub/sub when `REDIS_URL` is set.
 * Without Redis there is nobody to tell: `shared` is false and `publish` does nothing.
 *
 * Delivery is at most once: what is published while Redis, or a subscriber's connection to it, is
 * away is lost, and each instance then goes on as it would alone (expiry and time limits refuse
 * the rest). A publisher hears its own messages too: a listener must not mind hearing again what
 * its instance already did. Publishing and subscribing never throw, nor does Redis being away stop
 * the instance; the subscriber reconnects (ioredis) and subscribes to every topic again.
 */
export class InstanceBroadcast implements OnApplicationShutdown {
  private readonly logger = new Logger('InstanceBroadcast');
  private readonly listeners = new Map<string, Set<BroadcastListener>>();
  private readonly publisher?: Redis;
  private readonly subscriber?: Redis;

  constructor(redisUrl?: string) {
    if (!redisUrl) return;
    // A publish waits through a short reconnection, then fails (and is logged) rather than queue up while Redis is away.
    this.publisher = connectRedis(redisUrl, { maxRetriesPerRequest: 1 }, this.logger, 'other instances are not told meanwhile');
    // A subscription waits for Redis however long it takes; once made, ioredis makes it again on every reconnection.
    this.subscriber = connectRedis(redisUrl, { maxRetriesPerRequest: null }, this.logger, 'nothing is heard from other instances meanwhile');
    this.subscriber.on('message', (channel: string, message: string) => this.deliver(channel, message));
    // ioredis makes again only the subscriptions Redis confirmed: one sent while a connection was
    // being made and cut (an instance started while Redis was away) was lost, and with it every
    // message of its topic. So every topic with listeners is subscribed again on each connection.
    this.subscriber.on('ready', () => {
      for (const topic of this.listeners.keys()) this.subscribeTo(topic);
    });
  }

  /** Whether other instances can hear what this one publishes (`REDIS_URL` is set). */
  get shared(): boolean {
    return this.publisher !== undefined;
  }

  publish(topic: string, message: string): void {
    this.publisher?.publish(CHANNEL_PREFIX + topic, message).catch((error: unknown) => {
      this.logger.warn(`Could not tell the other instances (${topic}): ${describeError(error)}`);
    });
  }

  /** Calls `listener` with every message published on `topic` by any instance; the function returned stops it. */
  subscribe(topic: string, listener: BroadcastListener): () => void {
    let listeners = this.listeners.get(topic);
    if (!listeners) {
      listeners = new Set();
      this.listeners.set(topic, listeners);
      this.subscribeTo(topic);
    }
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.subscriber, this.publisher].map((redis) => redis && closeRedis(redis)));
  }

  private subscribeTo(topic: string): void {
    // Rejected only when the connection is closed at shutdown.
    this.subscriber?.subscribe(CHANNEL_PREFIX + topic).catch(() => undefined);
  }

  private deliver(channel: string, message: string): void {
    if (!channel.startsWith(CHANNEL_PREFIX)) return;
    const topic = channel.slice(CHANNEL_PREFIX.length);
    for (const listener of this.listeners.get(topic) ?? []) {
      try {
        listener(message);
      } catch (error) {
        this.logger.error(`A listener of ${topic} failed: ${describeError(error)}`);
      }
    }
  }
}

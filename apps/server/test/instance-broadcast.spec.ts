import { afterEach, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { InstanceBroadcast } from '@app/common';
import { eventually } from './support/files.js';
import { describeWithRedis, TEST_REDIS_URL } from './support/redis.js';

const describeRedis = await describeWithRedis(TEST_REDIS_URL);
/** The subscriber connection, reached into to cut it as a network would. */
const subscriberOf = (broadcast: InstanceBroadcast) => (broadcast as unknown as { subscriber: Redis }).subscriber;

describeRedis('InstanceBroadcast over Redis', () => {
  const opened: InstanceBroadcast[] = [];
  const open = () => {
    const broadcast = new InstanceBroadcast(TEST_REDIS_URL);
    opened.push(broadcast);
    return broadcast;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((broadcast) => broadcast.onApplicationShutdown()));
  });

  it('subscribes to every topic with listeners again on each connection, even one whose subscription was lost', async () => {
    const topic = `lost-${process.pid}-${Date.now()}`;
    const speaker = open();
    const hearer = open();
    const heard: string[] = [];
    hearer.subscribe(topic, (message) => heard.push(message));
    await eventually(async () => {
      speaker.publish(topic, 'before');
      expect(heard).toContain('before');
    }, 5000);
    // What an instance started while Redis was away lived through: ioredis had not kept the
    // subscription (it makes again only those Redis confirmed), and the connection then came back.
    const subscriber = subscriberOf(hearer);
    await subscriber.unsubscribe(`mirobody:broadcast:${topic}`);
    subscriber.disconnect(true);
    await eventually(async () => {
      speaker.publish(topic, 'after');
      expect(heard).toContain('after');
    }, 5000);
  });
});

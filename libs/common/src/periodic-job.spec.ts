import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { PeriodicJob } from './periodic-job.js';

const TIMING = { firstDelayMs: 1_000, intervalMs: 10_000 };

describe('PeriodicJob', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('runs first after the delay, then at the interval, and carries on after a failed pass', async () => {
    const errors: unknown[] = [];
    let passes = 0;
    const job = new PeriodicJob(
      TIMING,
      async () => {
        passes += 1;
        if (passes === 2) throw new Error('database away');
      },
      (error) => errors.push(error),
    );
    job.start();
    await jest.advanceTimersByTimeAsync(999);
    expect(passes).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(passes).toBe(1);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(passes).toBe(2);
    expect(errors).toEqual([new Error('database away')]);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(passes).toBe(3);
    await job.stop();
  });

  it('stop() waits for the pass in progress, tells it to stop, and schedules no other', async () => {
    let finishPass!: () => void;
    let passes = 0;
    let sawStopping = false;
    const job = new PeriodicJob(
      TIMING,
      () => {
        passes += 1;
        return new Promise<void>((resolve) => (finishPass = resolve)).then(() => void (sawStopping = job.stopping));
      },
      () => undefined,
    );
    job.start();
    await jest.advanceTimersByTimeAsync(1_000);
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finishPass();
    await stopping;
    expect(sawStopping).toBe(true);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(passes).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { ACK_BATCH_CHARS, ACK_INTERVAL_MS, HIGH_WATER_CHARS, LOW_WATER_CHARS } from './flowControl.js';

describe('terminal flow-control numbers', () => {
  it('acknowledges in batches no larger than the low watermark, so a paused terminal resumes without waiting for a timer', () => {
    expect(ACK_BATCH_CHARS).toBeGreaterThan(0);
    expect(ACK_BATCH_CHARS).toBeLessThanOrEqual(LOW_WATER_CHARS);
  });

  it('keeps the low watermark under the high one and acks within a frame', () => {
    expect(LOW_WATER_CHARS).toBeLessThan(HIGH_WATER_CHARS);
    expect(ACK_INTERVAL_MS).toBeGreaterThan(0);
    expect(ACK_INTERVAL_MS).toBeLessThanOrEqual(17);
  });
});

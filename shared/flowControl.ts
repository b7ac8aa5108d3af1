/**
 * Terminal flow control, the numbers both ends rely on (docs/transport.md): main stops reading
 * a terminal while more than HIGH_WATER_CHARS of its output is unacknowledged and resumes below
 * LOW_WATER_CHARS; the screen acknowledges what it has written in batches, at most one per
 * ACK_INTERVAL_MS or at once when ACK_BATCH_CHARS are waiting.
 */
// Large enough that a fast screen is rarely paused (measured: 15–20% faster floods than 256/64 KiB),
// small enough that a stalled screen holds at most a couple of MiB and Ctrl+C still lands soon.
export const HIGH_WATER_CHARS = 2 * 1024 * 1024;
export const LOW_WATER_CHARS = 512 * 1024;

// A flood (`yes`) costs a handful of acks per frame, never one per chunk. The batch must not
// exceed the low watermark, or a paused terminal could wait a full interval for output the
// screen has already written (shared/flowControl.test.ts holds it to that).
export const ACK_INTERVAL_MS = 16;
export const ACK_BATCH_CHARS = 256 * 1024;

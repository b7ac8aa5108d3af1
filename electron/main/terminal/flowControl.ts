/**
 * Back-pressure between a terminal's producer (the container) and its screen: pause reading
 * while too much output is unacknowledged, resume once the screen has caught up. Pure.
 */
import { HIGH_WATER_CHARS, LOW_WATER_CHARS } from '../../../shared/flowControl.js';

export { HIGH_WATER_CHARS, LOW_WATER_CHARS };

export class FlowControl {
  private unacked = 0;
  paused = false;

  /** Records sent output; true when the producer should now pause. */
  sent(chars: number): boolean {
    this.unacked += chars;
    if (!this.paused && this.unacked > HIGH_WATER_CHARS) {
      this.paused = true;
      return true;
    }
    return false;
  }

  /** Records output the screen has written; true when the producer should now resume. */
  acked(chars: number): boolean {
    this.unacked = Math.max(0, this.unacked - chars);
    if (this.paused && this.unacked < LOW_WATER_CHARS) {
      this.paused = false;
      return true;
    }
    return false;
  }
}

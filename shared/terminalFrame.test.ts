import { describe, expect, it } from 'vitest';
import { FRAME_TERMINAL_DATA, decodeTerminalFrame, encodeTerminalData } from './terminalFrame.js';

describe('terminal frames', () => {
  it('carry the id and the output exactly, escapes, multi-byte characters and astral ones too', () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    for (const data of ['', 'hello\r\n', '\x1b[1;31mred\x1b[0m "quoted" \\ back', 'é漢字🙂\u0000\u007f', 'x'.repeat(70_000)]) {
      const frame = encodeTerminalData(id, data);
      expect(frame).not.toBeNull();
      expect(frame?.[0]).toBe(FRAME_TERMINAL_DATA);
      expect(frame?.length).toBe(2 + id.length + new TextEncoder().encode(data).length);
      expect(decodeTerminalFrame(frame as Uint8Array)).toEqual({ terminalId: id, data });
    }
  });

  it('refuses ids that do not fit a header, and reads nothing from frames of another layout', () => {
    expect(encodeTerminalData('x'.repeat(256), 'a')).toBeNull();
    expect(encodeTerminalData('é', 'a')).toBeNull();
    expect(decodeTerminalFrame(new Uint8Array([]))).toBeNull();
    expect(decodeTerminalFrame(new Uint8Array([2, 0]))).toBeNull();
    expect(decodeTerminalFrame(new Uint8Array([FRAME_TERMINAL_DATA, 5, 0x61]))).toBeNull();
  });
});

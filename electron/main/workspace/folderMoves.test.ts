import { describe, expect, it } from 'vitest';
import { firstFolderNotes, folderMoveNote, folderMoves } from './folderMoves.js';

describe('folderMoves / folderMoveNote', () => {
  it('a second folder joining the first: the first moved from /workspace to /workspace/<name>, and the note names where and the cd', () => {
    const moves = folderMoves(
      [{ hostPath: '/home/me/notes', containerPath: '/workspace' }],
      [{ hostPath: '/home/me/notes', containerPath: '/workspace/notes' }, { hostPath: '/home/me/site', containerPath: '/workspace/site' }],
    );
    expect(moves).toEqual({ moved: [{ hostPath: '/home/me/notes', from: '/workspace', to: '/workspace/notes' }], gone: [] });
    const note = folderMoveNote(moves) as string;
    expect(note).toContain('"/home/me/notes" is now at /workspace/notes (it was at /workspace)');
    expect(note).toMatch(/kept; .*: cd \/workspace\/notes$/);
  });

  it('detaching lays the rest back and says which went; nothing moved, nothing to say', () => {
    const back = folderMoves(
      [{ hostPath: '/a/notes', containerPath: '/workspace/notes' }, { hostPath: '/a/site', containerPath: '/workspace/site' }],
      [{ hostPath: '/a/notes', containerPath: '/workspace' }],
    );
    expect(folderMoveNote(back)).toContain('"/a/notes" is now at /workspace (it was at /workspace/notes); "/a/site" was detached (/workspace/site is gone)');
    const none = folderMoves(
      [{ hostPath: '/a/x', containerPath: '/workspace/x' }, { hostPath: '/a/y', containerPath: '/workspace/y' }, { hostPath: '/a/z', containerPath: '/workspace/z' }],
      [{ hostPath: '/a/x', containerPath: '/workspace/x' }, { hostPath: '/a/z', containerPath: '/workspace/z' }],
    );
    expect(none.moved).toEqual([]);
    expect(folderMoveNote(none)).toBeNull();
    // Not mounted (the local backend): no container path, nothing moved.
    expect(folderMoves([{ hostPath: '/a/x', containerPath: null }], [{ hostPath: '/a/x', containerPath: null }, { hostPath: '/a/y', containerPath: null }]).moved).toEqual([]);
  });

  it('a folder name cannot send the terminal control sequences', () => {
    const note = folderMoveNote({ moved: [{ hostPath: '/a/\x1b]0;pwned\x07x', from: '/workspace', to: '/workspace/x' }], gone: [] }) as string;
    expect([...note].filter((c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f))).toEqual([]);
    expect(note).toContain('"/a/?]0;pwned?x"');
  });
});

describe('firstFolderNotes: the first folder arriving in a kept container', () => {
  it('says where it is, to the shells that start again and to the ones kept (with the cd)', () => {
    const notes = firstFolderNotes([], [{ hostPath: '/home/u/app', containerPath: '/workspace' }]);
    expect(notes?.restart).toContain('"/home/u/app" is at /workspace');
    expect(notes?.restart).toContain('started again there');
    expect(notes?.kept).toMatch(/were kept; to work in the folder: cd \/workspace$/);
  });
  it('is nothing when the chat had a folder before (moves say it) or none arrived', () => {
    expect(firstFolderNotes([{ hostPath: '/a', containerPath: '/workspace' }], [
      { hostPath: '/a', containerPath: '/workspace/a' }, { hostPath: '/b', containerPath: '/workspace/b' },
    ])).toBeNull();
    expect(firstFolderNotes([], [])).toBeNull();
  });
});

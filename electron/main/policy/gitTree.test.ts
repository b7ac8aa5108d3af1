import { describe, expect, it } from 'vitest';
import { editTree, foldersOf, hashAlgoOf, objectId, parseTree, serializeTree, TREE_MODE, type EntryChange } from './gitTree.js';

// Ids git itself gives (git hash-object, git mktree): the empty tree, "hello\n", "x\n".
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const HELLO = 'ce013625030ba8dba906f756967f9e9ca394464a';
const X = '587be6b4c3f93f93c489c0111bba5596147a26cb';

const tree = (entries: { mode: string; name: string; oid: string }[]) => serializeTree(entries.map((e) => ({ ...e, name: Buffer.from(e.name) })));

describe('gitTree', () => {
  it('object ids are git’s', () => {
    expect(objectId('tree', Buffer.alloc(0), 'sha1')).toBe(EMPTY_TREE);
    expect(objectId('blob', Buffer.from('hello\n'), 'sha1')).toBe(HELLO);
    expect(hashAlgoOf(EMPTY_TREE)).toBe('sha1');
    expect(hashAlgoOf('a'.repeat(64))).toBe('sha256');
    expect(() => hashAlgoOf('HEAD')).toThrow(/not a git object id/);
  });

  it('sorts as git does: a folder as if its name ended in "/"', () => {
    // git mktree of a.b (file), a (folder), a-c (file): "a-c" < "a.b" < "a/".
    const t = tree([
      { mode: TREE_MODE, name: 'a', oid: EMPTY_TREE },
      { mode: '100644', name: 'a.b', oid: HELLO },
      { mode: '100644', name: 'a-c', oid: HELLO },
    ]);
    expect(parseTree(t, 'sha1').map((e) => e.name.toString())).toEqual(['a-c', 'a.b', 'a']);
    // A file "a" would come before "a-c" ("a\0" < "a-").
    expect(parseTree(tree([{ mode: '100644', name: 'a-c', oid: HELLO }, { mode: '100644', name: 'a', oid: HELLO }]), 'sha1').map((e) => e.name.toString())).toEqual(['a', 'a-c']);
  });

  it('folders of a path, outermost first', () => {
    expect(foldersOf('f')).toEqual(['']);
    expect(foldersOf('a/b/c')).toEqual(['', 'a', 'a/b']);
  });

  it('edits a nested path, adds under a new folder, and drops a folder left empty', () => {
    const sub = tree([{ mode: '100644', name: 'keep', oid: HELLO }, { mode: '100644', name: 'gone', oid: HELLO }]);
    const only = tree([{ mode: '100644', name: 'last', oid: HELLO }]);
    const root = tree([
      { mode: TREE_MODE, name: 'd', oid: objectId('tree', sub, 'sha1') },
      { mode: TREE_MODE, name: 'e', oid: objectId('tree', only, 'sha1') },
      { mode: '100644', name: 'top', oid: HELLO },
    ]);
    const trees = new Map<string, Buffer | null>([['', root], ['d', sub], ['e', only], ['n', null], ['n/m', null]]);
    const changes = new Map<string, EntryChange>([
      ['d/gone', null],
      ['e/last', null],
      ['top', { mode: '100755', oid: X }],
      ['n/m/new', { mode: '100644', oid: X }],
    ]);
    const out = editTree(trees, changes, 'sha1');
    if ('error' in out) throw new Error(out.error);
    const byId = new Map(out.trees.map((t) => [t.oid, t.content]));
    const top = parseTree(byId.get(out.root)!, 'sha1');
    expect(top.map((e) => `${e.mode} ${e.name.toString()}`)).toEqual([`${TREE_MODE} d`, `${TREE_MODE} n`, '100755 top']);
    const d = parseTree(byId.get(top[0]!.oid)!, 'sha1');
    expect(d.map((e) => e.name.toString())).toEqual(['keep']);
    const n = parseTree(byId.get(top[1]!.oid)!, 'sha1');
    const m = parseTree(byId.get(n[0]!.oid)!, 'sha1');
    expect(m).toEqual([{ mode: '100644', name: Buffer.from('new'), oid: X }]);
  });

  it('everything removed is the empty tree; a file where a folder is (or the other way) is refused', () => {
    const root = tree([{ mode: '100644', name: 'f', oid: HELLO }, { mode: TREE_MODE, name: 'd', oid: EMPTY_TREE }]);
    const gone = editTree(new Map([['', root]]), new Map<string, EntryChange>([['f', null], ['d', null]]), 'sha1');
    expect(gone).toMatchObject({ error: '"d" is a folder in the copy\'s base' });
    const empty = editTree(new Map([['', tree([{ mode: '100644', name: 'f', oid: HELLO }])]]), new Map<string, EntryChange>([['f', null]]), 'sha1');
    expect(empty).toMatchObject({ root: EMPTY_TREE });
    const under = editTree(new Map<string, Buffer | null>([['', root], ['f', null]]), new Map<string, EntryChange>([['f/x', { mode: '100644', oid: X }]]), 'sha1');
    expect(under).toMatchObject({ error: '"f" is a file in the copy\'s base' });
  });
});

/**
 * Callbacks handed to services when core/services.ts builds them: a service that must tell a
 * higher one something emits on MainEvents, otherwise the higher one calls down, so this count
 * may only go down. Each `new Service({ … })` in services.ts is read and its function-valued
 * properties (`name: (…) =>`) listed; setters that install a callback after construction are
 * counted too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SERVICES = path.join(__dirname, '../../electron/main/core/services.ts');

function constructorCallbacks(source: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const m of source.matchAll(/new (\w+)\(\{/g)) {
    let depth = 0;
    let i = (m.index ?? 0) + m[0].length - 1;
    for (; i < source.length; i++) {
      const c = source[i] as string;
      if ('({['.includes(c)) depth++;
      else if (')}]'.includes(c) && --depth === 0) break;
    }
    const body = source.slice((m.index ?? 0) + m[0].length, i);
    const names = [...body.matchAll(/^ {4}(\w+)\??: (?:async )?(?:\([^)]*\)|\w+) =>/gm)].map((p) => p[1] as string);
    if (names.length > 0) found.set(m[1] as string, [...(found.get(m[1] as string) ?? []), ...names]);
  }
  return found;
}

describe('callbacks between services', () => {
  const source = fs.readFileSync(SERVICES, 'utf8');
  const callbacks = constructorCallbacks(source);

  it('the warm pool and deletion call down: no callback into them but the two that reach above sandbox/', () => {
    expect(callbacks.get('WarmPool')).toBeUndefined();
    expect(callbacks.size).toBeGreaterThan(0);
    expect(callbacks.get('DeletionService')).toEqual(['endChat', 'removeProxy']);
  });

  it('never grows: at most the callbacks services are built with today, and no setter', () => {
    const total = [...callbacks.values()].reduce((n, names) => n + names.length, 0);
    // Measured when this test was written (this file's scan of services.ts): 24, and the
    // environments setter (gone since: sandbox/ reads a chat's environment from store/chatEnvironments,
    // and environment/ tells terminal/ by MainEvents). Lower the number as callbacks go; never raise it.
    expect(total).toBeLessThanOrEqual(24);
    expect(total).toBeGreaterThan(0);
    expect([...source.matchAll(/\.set[A-Z]\w*\(/g)].map((m) => m[0])).toEqual([]);
  });
});

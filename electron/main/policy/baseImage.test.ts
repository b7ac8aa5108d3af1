import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEBIAN_RECIPE, classifyPullFailure, isStaticElf } from './baseImage.js';

describe('base image recipes', () => {
  it('the recipe Berth builds is the one in build/sandbox/Dockerfile', () => {
    const file = fs.readFileSync(path.resolve(import.meta.dirname, '../../../build/sandbox/Dockerfile'), 'utf8');
    expect(file.trim()).toBe(DEBIAN_RECIPE.trim());
  });

  it('tells a static executable from a dynamic one, and the wrong architecture', () => {
    const self = fs.readFileSync(process.execPath); // node: dynamically linked
    expect(isStaticElf(self, process.arch)).toBe(false);
    expect(isStaticElf(Buffer.from('#!/bin/sh\n'.padEnd(80)), process.arch)).toBe(false);
    if (fs.existsSync('/bin/busybox') && process.arch === 'x64') {
      const busybox = fs.readFileSync('/bin/busybox');
      const staticHere = !/ld-linux|ld-musl/.test(busybox.subarray(0, 4096).toString('latin1'));
      expect(isStaticElf(busybox, 'x64')).toBe(staticHere);
      expect(isStaticElf(busybox, 'arm64')).toBe(false);
    }
  });
});

describe('why a download failed', () => {
  it.each([
    ['Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io on 10.0.0.53:53: no such host', 'unreachable'],
    ['Get "http://127.0.0.1:1/v2/": dial tcp 127.0.0.1:1: connect: connection refused', 'unreachable'],
    ['Get "https://ghcr.io/v2/": net/http: TLS handshake timeout', 'unreachable'],
    ['manifest for 127.0.0.1:5000/x:1 not found: manifest unknown: manifest unknown', 'not_found'],
    ['pull access denied for nosuch/image, repository does not exist or may require \'docker login\'', 'not_found'],
    ['something else entirely', 'other'],
  ])('%s → %s', (message, kind) => {
    expect(classifyPullFailure(message)).toBe(kind);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EGRESS_DEBIAN_RECIPE, EGRESS_IMAGE, EGRESS_ROOTFS_PACKAGES } from './egressImage.js';
import { debianMirror, debootstrapArgs, debootstrapProgress } from './rootfsImage.js';

describe('the egress proxy image recipes', () => {
  it('the recipe Berth builds is the one in build/egress/Dockerfile, with the squid that can read SNI', () => {
    const file = fs.readFileSync(path.resolve(import.meta.dirname, '../../../build/egress/Dockerfile'), 'utf8');
    expect(file.trim()).toBe(EGRESS_DEBIAN_RECIPE.trim());
    expect(EGRESS_DEBIAN_RECIPE).toContain('squid-openssl');
    expect(EGRESS_DEBIAN_RECIPE).toContain(EGRESS_IMAGE);
  });

  it('debootstraps the same packages from the mirror apt uses (deb822 or one-line sources), never the security mirror', () => {
    expect(debootstrapArgs('/r', 'http://m/debian', EGRESS_ROOTFS_PACKAGES)).toEqual(['--variant=minbase', '--include=squid-openssl,haproxy,openssl,ca-certificates', 'bookworm', '/r', 'http://m/debian']);
    expect(debianMirror('Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n')).toBe('http://mirror.example/debian');
    expect(debianMirror('Types: deb\nURIs: http://deb.debian.org/debian-security\n')).toBe('http://deb.debian.org/debian');
    expect(debianMirror('deb [arch=amd64] http://ftp.example/debian bookworm main\n')).toBe('http://ftp.example/debian');
    expect(debianMirror('')).toBe('http://deb.debian.org/debian');
  });

  it("reads debootstrap's lines as progress that only moves forward through its phases", () => {
    const lines = ['I: Retrieving InRelease', 'I: Retrieving libc6 2.36', 'I: Extracting libc6...', 'I: Unpacking libc6...', 'I: Base system installed successfully.'];
    const fractions = lines.map((l) => debootstrapProgress(l)?.fraction ?? 0);
    expect([...fractions].sort((a, b) => a - b)).toEqual(fractions);
    expect(debootstrapProgress('I: Retrieving libc6 2.36')?.message).toContain('Retrieving libc6');
    expect(debootstrapProgress('W: something')).toBeNull();
  });
});

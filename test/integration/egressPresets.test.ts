/**
 * A preset on a profile's allowlist, against the real proxy: the preset's hosts are reachable
 * (plain HTTP and HTTPS), another preset's hosts and unlisted ones are refused with the proxy's
 * reason. The preset's real names (pypi.org, registry.npmjs.org) are answered by the tests' own
 * pretend internet: its web server carries them as network aliases, so nothing leaves this machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EGRESS_PRESETS, withPreset } from '../../shared/egressPresets.js';
import { allowlistChat, type AllowlistChat } from '../support/allowlistChat.js';
import { Harness } from '../support/harness.js';

const preset = (id: string) => {
  const p = EGRESS_PRESETS.find((x) => x.id === id);
  if (!p) throw new Error(`No preset ${id}.`);
  return p;
};
const python = preset('python');
const npm = preset('npm');

const h = new Harness();
let chat: AllowlistChat | undefined;
const run = (command: string) => (chat as AllowlistChat).run(command);

beforeAll(async () => {
  // The list as the profile form's "Python (PyPI)" button leaves it.
  chat = await allowlistChat(h, withPreset(['allowed.test'], python), [...python.hosts, ...npm.hosts]);
}, 180_000);

afterAll(async () => {
  await h.cleanup();
  await chat?.inet.stop();
}, 120_000);

describe('a preset on the allowlist', () => {
  it("reaches the preset's hosts over HTTP and HTTPS", async () => {
    for (const host of python.hosts) {
      expect(await run(`curl -sS --max-time 10 http://${host}/`)).toContain(`hello from ${host} on 80`);
      expect(await run(`curl -sS -k --max-time 10 https://${host}/`)).toContain(`hello from ${host} on 443`);
    }
  }, 120_000);

  it("refuses another preset's hosts and unlisted hosts, saying they are not listed", async () => {
    for (const host of [...npm.hosts, 'blocked.test']) {
      const plain = await run(`curl -sS -i --max-time 10 http://${host}/`);
      expect(plain).toMatch(/^HTTP\/1\.1 403/);
      expect(plain).toMatch(/^x-berth-refused: not-listed\r?$/im);
      expect(plain).not.toContain('hello from');
      const tls = await run(`curl -sS -k -v --max-time 10 https://${host}/ 2>&1`);
      expect(tls).toMatch(/< x-berth-refused: not-listed/i);
      expect(tls).not.toContain('hello from');
    }
  }, 120_000);
});

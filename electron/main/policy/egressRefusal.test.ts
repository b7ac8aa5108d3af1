import { describe, expect, it } from 'vitest';
import { configSafeName, haproxyRefusalRule, refusalMessage, refusedNote } from './egressRefusal.js';

describe('a refusal says who refused, why, and what to do', () => {
  it('names Berth, host:port, the profile, the reason and how to allow it', () => {
    const m = refusalMessage('not-listed', 'blocked.test:443', 'work');
    expect(m).toBe("Berth's egress proxy refused blocked.test:443: it is not on the allowlist of profile \"work\", nor allowed for this chat. To allow it, open this chat's Network view in Berth and choose Allow: once (this host:port for 10 minutes), for this chat, or for the profile.");
    expect(refusalMessage('ip-address', '198.18.0.5:80', 'work')).toContain('IP address');
    expect(refusalMessage('local-address', 'intranet.test:80', 'work')).toMatch(/local or private address[\s\S]*cannot be allowed/);
    expect(refusalMessage('method', 'other.test:80', 'work', 'POST')).toBe("Berth's egress proxy refused POST to other.test:80: the allowlist of profile \"work\" lets only some methods through to it, over plain HTTP (an HTTP-only rule: HTTPS to it is refused, its methods cannot be seen without decrypting). To allow it, add the method to the host's entry in the profile's allowlist (Profiles, Network), or Allow the host for this chat from its Network view (every method).");
  });

  it("answers in HAProxy's configuration with the header and the sentence, with nothing of the name read as configuration", () => {
    const rule = haproxyRefusalRule('not-listed', 'my "team" $HOME 100%\nx');
    expect(rule).toMatch(/^http-request return status 403 content-type "text\/plain; charset=utf-8" hdr X-Berth-Refused not-listed lf-string ".*\\n" if \{ var\(txn\.why\) -m str not-listed \}$/);
    expect(rule).toContain('refused %[var(txn.host)]:%[var(txn.port)]:');
    expect(rule).toContain('profile \\"my ?team? ?HOME 100??x\\"');
    expect(configSafeName('Work 2 (sandbox)')).toBe('Work 2 (sandbox)');
  });

  it("tells the agent each refused destination once, with its reason", () => {
    const note = refusedNote([
      { host: 'other.test', port: 443, reason: 'not-listed' },
      { host: 'other.test', port: 443 },
      { host: '198.18.0.5', port: 80, reason: 'ip-address' },
    ], 'work');
    expect(note).toContain('[Berth] The network policy of profile "work" refused 2 destinations.');
    expect(note).toContain("- Berth's egress proxy refused other.test:443: it is not on the allowlist");
    expect(note).toContain('- Berth\'s egress proxy refused 198.18.0.5:80: it is an IP address');
    expect(note.match(/other\.test:443/g)).toHaveLength(1);
  });
});

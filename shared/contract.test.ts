import { describe, expect, it } from 'vitest';
import { ProfileSettings } from './contract.js';

function sandboxUserIssues(sandboxUser: string): string[] {
  const result = ProfileSettings.safeParse({ sandboxUser });
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
}

describe('ProfileSettings.sandboxUser', () => {
  it.each(['1000:1000', '1:1', '501:20', '0100:0100'])('accepts the non-root user %s', (value) => {
    expect(sandboxUserIssues(value)).toEqual([]);
  });

  it.each(['0:0', '0:1000', '00:00', '000:1000'])('refuses uid 0 written as %s', (value) => {
    expect(sandboxUserIssues(value)).toContain('The sandbox never runs as root (uid 0).');
  });

  it.each(['1000:0', '1000:00', '00:00'])("refuses root's group written as %s", (value) => {
    expect(sandboxUserIssues(value)).toContain("The sandbox never runs in root's group (gid 0).");
  });

  it.each(['root', '1000', '1000:', ':1000', '-1:1000', '1000:1000:1'])('refuses the malformed value %s', (value) => {
    expect(sandboxUserIssues(value)).toContain('The sandbox user is written uid:gid, for example 1000:1000.');
  });

  it('defaults to 1000:1000', () => {
    expect(ProfileSettings.parse({}).sandboxUser).toBe('1000:1000');
  });
});

describe('ProfileSettings.sandboxUser messages', () => {
  it('says only that the format is wrong for a malformed value', () => {
    expect(sandboxUserIssues('root')).toEqual(['The sandbox user is written uid:gid, for example 1000:1000.']);
  });
});

import { describe, expect, it } from 'vitest';
import { profileView } from '../../test/fakeApi';
import { agentExtrasFromForm, joinCommand, rowsFromSettings, splitCommand } from './agentFields';
import { changedSettings, formFromProfile, settingsFromForm } from './profileForm';

describe('MCP server commands as one line', () => {
  it('splits words as a shell would for quotes and backslashes, and joins them back to the same words', () => {
    expect(splitCommand(`python3  "/my tools/s.py" --name 'a b' x\\ y ""`)).toEqual(['python3', '/my tools/s.py', '--name', 'a b', 'x y', '']);
    for (const words of [['node', '/w/server.js'], ['sh', '-c', "echo 'hi' \"there\""], ['a b', '', '$HOME']]) {
      expect(splitCommand(joinCommand(words))).toEqual(words);
    }
  });
});

describe('the agent’s context window and MCP servers in the form', () => {
  it('round-trips a profile’s servers and window, and an unchanged form changes nothing', () => {
    const mcpServers = [
      { name: 'files', command: ['python3', '/w/my server.py'], approval: 'auto' as const, timeoutSeconds: 9 },
      { name: 'web', url: 'http://mcp.test:8080/mcp' },
    ];
    const p = profileView('work', { agent: { baseUrl: null, model: null, approval: 'ask', contextWindow: 65536, mcpServers } });
    const form = formFromProfile(p);
    expect(rowsFromSettings(mcpServers)[1]).toMatchObject({ kind: 'url', url: 'http://mcp.test:8080/mcp' });
    const result = settingsFromForm(form);
    expect(result.ok && result.settings.agent).toEqual({ baseUrl: null, model: null, approval: 'ask', contextWindow: 65536, mcpServers });
    expect(result.ok && changedSettings(p.settings, result.settings)).toEqual({});
  });

  it('reads a context window typed with separators, and says a word that is no number in words', () => {
    expect(agentExtrasFromForm('128,000', [])).toEqual({ ok: true, contextWindow: 128000, mcpServers: [] });
    expect(agentExtrasFromForm('lots', [])).toMatchObject({ ok: false, errors: { contextWindow: 'The context window is a whole number of tokens, or empty for the provider’s figure.' } });
  });
});

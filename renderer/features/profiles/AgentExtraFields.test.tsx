import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { profileView } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { ProfilesDialog } from './ProfilesDialog';

const agent = { baseUrl: 'http://127.0.0.1:9/v1', model: 'test-model', approval: 'ask' as const };

function openWork(settings: Parameters<typeof profileView>[1] = { agent }) {
  const rendered = renderWithApp(<ProfilesDialog onClose={() => {}} initialProfile="work" />, { profiles: [profileView('default'), profileView('work', settings)] });
  const form = () => screen.getByRole('form', { name: 'Edit profile work' });
  return { ...rendered, form };
}

/** The n-th MCP server's row (1-based), as the user sees it. */
const row = (form: HTMLElement, n: number) => within(form).getByRole('listitem', { name: `MCP server ${n}` });

describe('the profile form’s context window and MCP servers', () => {
  it('saves a context window and MCP servers the user adds (a command with a quoted word, and a URL), keeping the agent’s other settings', async () => {
    const { api, form } = openWork();
    await waitFor(() => expect(form()).toBeTruthy());
    fireEvent.change(within(form()).getByRole('textbox', { name: 'Context window (tokens)' }), { target: { value: '128000' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Add MCP server' }));
    fireEvent.change(within(row(form(), 1)).getByRole('textbox', { name: 'Name' }), { target: { value: 'files' } });
    fireEvent.change(within(row(form(), 1)).getByRole('textbox', { name: 'Command and arguments' }), { target: { value: 'python3 "/workspace/my tools/server.py" --root /workspace' } });
    fireEvent.change(within(row(form(), 1)).getByRole('textbox', { name: 'Timeout (seconds)' }), { target: { value: '30' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Add MCP server' }));
    fireEvent.change(within(row(form(), 2)).getByRole('textbox', { name: 'Name' }), { target: { value: 'remote' } });
    fireEvent.change(within(row(form(), 2)).getByRole('combobox', { name: 'Runs as' }), { target: { value: 'url' } });
    fireEvent.change(within(row(form(), 2)).getByRole('textbox', { name: 'URL' }), { target: { value: 'https://mcp.example.com/mcp' } });
    fireEvent.change(within(row(form(), 2)).getByRole('combobox', { name: 'Its tool calls' }), { target: { value: 'auto' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Save profile' }));

    await waitFor(() => expect(api.callsTo('profiles.update')).toHaveLength(1));
    const servers = [
      { name: 'files', command: ['python3', '/workspace/my tools/server.py', '--root', '/workspace'], timeoutSeconds: 30 },
      { name: 'remote', url: 'https://mcp.example.com/mcp', approval: 'auto' },
    ];
    expect(api.profiles.find((p) => p.name === 'work')?.settings.agent).toEqual({ ...agent, contextWindow: 128000, mcpServers: servers });
    expect(await within(form()).findByRole('status')).toHaveProperty('textContent', 'Saved.');
    // Saved, the form is no longer changed: nothing asks before closing.
    expect(within(form()).queryByText('This profile has changes that are not saved.')).toBeNull();
  });

  it('empties the context window and removes a server when the user clears them, and an unchanged form sends no agent change', async () => {
    const mcpServers = [{ name: 'files', command: ['python3', 'server.py'], approval: 'ask' as const, timeoutSeconds: 5 }];
    const { api, form } = openWork({ agent: { ...agent, contextWindow: 8192, mcpServers } });
    await waitFor(() => expect((within(form()).getByRole('textbox', { name: 'Context window (tokens)' }) as HTMLInputElement).value).toBe('8192'));
    // Changed elsewhere only: the agent, its servers' approval and timeout among it, is not in the edit.
    fireEvent.change(within(form()).getByRole('spinbutton', { name: 'Memory (MB)' }), { target: { value: '1024' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(api.callsTo('profiles.update')).toHaveLength(1));
    expect((api.callsTo('profiles.update')[0] as { settings: object }).settings).not.toHaveProperty('agent');

    fireEvent.change(within(form()).getByRole('textbox', { name: 'Context window (tokens)' }), { target: { value: '' } });
    fireEvent.click(within(row(form(), 1)).getByRole('button', { name: 'Remove MCP server 1' }));
    fireEvent.click(within(form()).getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(api.callsTo('profiles.update')).toHaveLength(2));
    expect(api.profiles.find((p) => p.name === 'work')?.settings.agent).toEqual({ ...agent, contextWindow: null, mcpServers: [] });
  });

  it('shows each invalid entry beside its field in words, puts the focus on the first, and saves nothing', async () => {
    const { api, form } = openWork();
    await waitFor(() => expect(form()).toBeTruthy());
    const cw = within(form()).getByRole('textbox', { name: 'Context window (tokens)' });
    fireEvent.change(cw, { target: { value: '100' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Add MCP server' }));
    const name = within(row(form(), 1)).getByRole('textbox', { name: 'Name' });
    fireEvent.change(name, { target: { value: 'my server' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Add MCP server' }));
    fireEvent.change(within(row(form(), 2)).getByRole('textbox', { name: 'Name' }), { target: { value: 'web' } });
    fireEvent.change(within(row(form(), 2)).getByRole('combobox', { name: 'Runs as' }), { target: { value: 'url' } });
    const url = within(row(form(), 2)).getByRole('textbox', { name: 'URL' });
    fireEvent.change(url, { target: { value: 'ftp://files.example.com/mcp' } });
    const timeout = within(row(form(), 2)).getByRole('textbox', { name: 'Timeout (seconds)' });
    fireEvent.change(timeout, { target: { value: 'soon' } });
    // Not while typing.
    expect(cw.getAttribute('aria-invalid')).toBeNull();
    fireEvent.click(within(form()).getByRole('button', { name: 'Save profile' }));

    await waitFor(() => expect(cw.getAttribute('aria-invalid')).toBe('true'));
    const said = (el: HTMLElement) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent;
    expect(said(cw)).toBe('The context window is at least 2048 tokens.');
    expect(said(name)).toBe('An MCP server name is 1-24 letters, digits, - or _.');
    // The first server's command was left empty: said on its own field.
    const command = within(row(form(), 1)).getByRole('textbox', { name: 'Command and arguments' });
    expect(said(command)).toBe('Give the MCP server\'s command (the program and its arguments).');
    expect(said(url)).toBe('An MCP server URL must start with http:// or https://.');
    expect(said(timeout)).toBe('An MCP server’s timeout is a whole number of seconds, or empty for 60.');
    expect(document.activeElement).toBe(cw);
    expect(within(form()).queryByRole('alert')).toBeNull();
    expect(api.callsTo('profiles.update')).toEqual([]);

    // Two servers with one name: said under the list.
    fireEvent.change(cw, { target: { value: '' } });
    fireEvent.change(name, { target: { value: 'web' } });
    fireEvent.change(command, { target: { value: 'srv' } });
    fireEvent.change(url, { target: { value: 'http://mcp.test/mcp' } });
    fireEvent.change(timeout, { target: { value: '' } });
    fireEvent.click(within(form()).getByRole('button', { name: 'Save profile' }));
    expect(await within(form()).findByText('Each MCP server needs its own name.')).toBeTruthy();
    expect(api.callsTo('profiles.update')).toEqual([]);
  });

  it('says beside an HTTP server’s URL how the profile’s network treats it, and that "none" will not reach it', async () => {
    const { form } = openWork({ agent, egress: 'none' });
    await waitFor(() => expect(form()).toBeTruthy());
    fireEvent.click(within(form()).getByRole('button', { name: 'Add MCP server' }));
    fireEvent.change(within(row(form(), 1)).getByRole('combobox', { name: 'Runs as' }), { target: { value: 'url' } });
    fireEvent.change(within(row(form(), 1)).getByRole('textbox', { name: 'URL' }), { target: { value: 'https://mcp.example.com/mcp' } });
    expect(within(row(form(), 1)).getByText('This profile\'s network is "none": Berth will not reach this server. Choose "allowlist" with mcp.example.com on the list, or "open".')).toBeTruthy();
    fireEvent.change(within(form()).getByRole('combobox', { name: 'Network' }), { target: { value: 'allowlist' } });
    expect(within(row(form(), 1)).getByText('Reached through the egress proxy: mcp.example.com must be on the allowed hosts (or allowed for the chat).')).toBeTruthy();
  });
});

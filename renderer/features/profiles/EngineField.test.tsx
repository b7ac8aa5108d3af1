import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { OK_ENGINE, profileView } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { ProfilesDialog } from './ProfilesDialog';

const TCP = { url: 'tcp://build.example:2376', ca: '/home/me/.docker/far/ca.pem', cert: '/home/me/.docker/far/cert.pem', key: '/home/me/.docker/far/key.pem' };

function openNew() {
  const rendered = renderWithApp(<ProfilesDialog onClose={() => {}} />, { profiles: [profileView('default')] });
  const dialog = screen.getByRole('dialog', { name: 'Profiles' });
  fireEvent.click(within(dialog).getByRole('button', { name: 'Create profile' }));
  fireEvent.change(within(dialog).getByRole('textbox', { name: 'Name' }), { target: { value: 'far' } });
  // The allowlist runs on this computer's Docker only (ProfilesDialog.test.tsx): these engines' profiles have none.
  fireEvent.change(within(dialog).getByRole('combobox', { name: 'Network' }), { target: { value: 'none' } });
  return { ...rendered, dialog };
}

// The whole dialog renders in each test: give a loaded machine time (no assertion is about speed).
describe('the profile form: where the sandboxes run (engine)', { timeout: 30_000 }, () => {
  it('offers every kind of engine, this computer\'s by default', async () => {
    const { dialog } = openNew();
    const kind = within(dialog).getByRole('combobox', { name: 'Engine' }) as HTMLSelectElement;
    expect(kind.value).toBe('default');
    expect([...kind.options].map((o) => o.value)).toEqual(['default', 'context', 'ssh', 'tcp', 'podman']);
  });

  it('says what is wrong next to the field, in plain words, and saves nothing until it is right', async () => {
    const { api, dialog } = openNew();
    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Engine' }), { target: { value: 'tcp' } });
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Engine address' }), { target: { value: 'http://build.example' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    const address = within(dialog).getByRole('textbox', { name: 'Engine address' });
    await waitFor(() => expect(address.getAttribute('aria-invalid')).toBe('true'));
    // The shared schema's words, shown beside the field it is about.
    expect(document.getElementById(address.getAttribute('aria-describedby') as string)?.textContent).toContain('A TCP engine is written tcp://host:port.');
    const ca = within(dialog).getByRole('textbox', { name: 'CA certificate file' });
    expect(document.getElementById(ca.getAttribute('aria-describedby') as string)?.textContent).toContain('Give the full path of the CA certificate file');
    expect(api.callsTo('profiles.create')).toEqual([]);

    fireEvent.change(address, { target: { value: TCP.url } });
    fireEvent.change(ca, { target: { value: TCP.ca } });
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Client certificate file' }), { target: { value: TCP.cert } });
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Client key file' }), { target: { value: TCP.key } });
    expect(address.getAttribute('aria-invalid')).toBeNull();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(api.callsTo('profiles.create')).toHaveLength(1));
    expect(api.callsTo('profiles.create')[0]).toMatchObject({ name: 'far', engine: { kind: 'tcp', url: TCP.url, tls: { ca: TCP.ca, cert: TCP.cert, key: TCP.key } } });
  });

  it('checks the connection through main before saving, and says what answered or why not', async () => {
    const { api, dialog } = openNew();
    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Engine' }), { target: { value: 'ssh' } });
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Engine address' }), { target: { value: 'ssh://me@build.example:2222' } });
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'SSH key file' }), { target: { value: '/home/me/.ssh/id_ed25519' } });
    api.handle('engine.check', () => ({ ...OK_ENGINE, version: '27.1.1', endpoint: 'ssh://me@build.example:2222' }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Check connection' }));
    const result = await within(dialog).findByRole('status', { name: 'Connection check' });
    await waitFor(() => expect(result.textContent).toContain('Docker 27.1.1 answers at ssh://me@build.example:2222.'));
    expect(api.callsTo('engine.check')).toEqual([{ engine: { kind: 'ssh', url: 'ssh://me@build.example:2222', identityFile: '/home/me/.ssh/id_ed25519' } }]);

    api.handle('engine.check', () => ({ state: 'unreachable', version: null, endpoint: 'ssh://me@build.example:2222', message: 'The SSH engine refused the key.', hint: 'Add the key to the server.', engine: null }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Check connection' }));
    await waitFor(() => expect(result.textContent).toContain('The SSH engine refused the key. Add the key to the server.'));
    // Editing the address again: the answer was about the old one, so it goes.
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Engine address' }), { target: { value: 'ssh://me@other' } });
    expect(within(dialog).queryByRole('status', { name: 'Connection check' })).toBeNull();
  });

  it('checks an edited profile\'s connection naming the profile, whose saved key files main may read', async () => {
    const { api } = renderWithApp(<ProfilesDialog onClose={() => {}} initialProfile="work" />, { profiles: [profileView('default'), profileView('work')] });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    await within(dialog).findByRole('heading', { name: 'Profile “work”' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Check connection' }));
    await waitFor(() => expect(api.callsTo('engine.check')).toEqual([{ engine: { kind: 'default' }, profile: 'work' }]));
  });

  it('lists the Docker contexts from the Docker config, as the docker command does', async () => {
    const { api, dialog } = openNew();
    api.handle('engine.contexts', () => ({
      contexts: [
        { name: 'default', host: 'unix:///var/run/docker.sock', current: false },
        { name: 'far', host: 'ssh://me@far.example', current: true },
      ],
    }));
    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Engine' }), { target: { value: 'context' } });
    const context = within(dialog).getByRole('combobox', { name: 'Docker context' }) as HTMLSelectElement;
    await waitFor(() => expect([...context.options].map((o) => o.text)).toEqual(['default — unix:///var/run/docker.sock', 'far — ssh://me@far.example (current)']));
    // It starts at the docker command's current context.
    await waitFor(() => expect(context.value).toBe('far'));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(api.callsTo('profiles.create')).toHaveLength(1));
    expect(api.callsTo('profiles.create')[0]).toMatchObject({ engine: { kind: 'context', name: 'far' } });
  });

  it('says before saving that running chats stay on their engine until their sandbox stops', async () => {
    const { api } = renderWithApp(<ProfilesDialog onClose={() => {}} initialProfile="work" />, { profiles: [profileView('default'), profileView('work')] });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    await within(dialog).findByRole('heading', { name: 'Profile “work”' });
    expect(within(dialog).queryByRole('note', { name: 'Engine change' })).toBeNull();
    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Engine' }), { target: { value: 'podman' } });
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Podman socket' }), { target: { value: '/run/podman/podman.sock' } });
    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Network' }), { target: { value: 'open' } });
    const note = within(dialog).getByRole('note', { name: 'Engine change' });
    expect(note.textContent).toContain('A chat whose sandbox is running keeps running on the engine it started on');
    expect(note.textContent).toContain('until its sandbox stops');
    expect(note.textContent).toContain('home folder and installed packages stay on the old engine');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(api.callsTo('profiles.update')).toEqual([{ name: 'work', settings: { egress: 'open', engine: { kind: 'podman', socketPath: '/run/podman/podman.sock' } } }]));
  });
});

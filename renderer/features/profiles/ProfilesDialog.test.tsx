import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { chatView, profileView, reviewInfo } from '../../test/fakeApi';
import { renderWithApp } from '../../test/render';
import { ProfilesDialog } from './ProfilesDialog';

const WARNING = /no sandbox: commands run on this computer with your permissions/;

describe('ProfilesDialog', () => {
  it('says plainly that a local-backend profile has no sandbox, and offers no way to choose it', async () => {
    renderWithApp(<ProfilesDialog onClose={() => {}} />, { profiles: [profileView('default'), profileView('hostside', { backend: 'local' })] });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create profile' }));
    expect(within(dialog).queryByText(WARNING)).toBeNull();
    expect(within(dialog).queryByRole('combobox', { name: 'Backend' })).toBeNull();
  });

  it("opened from a chat whose agent is not set up, puts the focus in the agent field it lacks", async () => {
    const agent = (baseUrl: string | null) => ({ ...profileView('x').settings.agent, baseUrl, model: null });
    const first = renderWithApp(<ProfilesDialog onClose={() => {}} initialProfile="work" focusAgent />, {
      profiles: [profileView('default'), profileView('work', { agent: agent(null) })],
    });
    // The dialog opens on the new-profile form, then the list arrives and the profile's form takes
    // the focus: on a loaded machine that is more than waitFor's default second.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Provider URL' })), { timeout: 10_000 });
    first.unmount();
    renderWithApp(<ProfilesDialog onClose={() => {}} initialProfile="work" focusAgent />, {
      profiles: [profileView('default'), profileView('work', { agent: agent('http://127.0.0.1:9/v1') })],
    });
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Model' })), { timeout: 10_000 });
  });

  it('creates a profile with the form\'s settings', async () => {
    const { api } = renderWithApp(<ProfilesDialog onClose={() => {}} />, { profiles: [profileView('default')] });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create profile' }));
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Name' }), { target: { value: 'offline' } });
    // Allowlist is the default, with its hosts editable; open says plainly what it exposes.
    expect((within(dialog).getByRole('combobox', { name: 'Network' }) as HTMLSelectElement).value).toBe('allowlist');
    expect((within(dialog).getByRole('textbox', { name: /Allowed hosts/ }) as HTMLTextAreaElement).value).toContain('registry.npmjs.org');
    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Network' }), { target: { value: 'open' } });
    expect(within(dialog).getByText(/can reach the whole internet and any service on your computer/)).toBeTruthy();
    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Network' }), { target: { value: 'none' } });
    fireEvent.change(within(dialog).getByRole('spinbutton', { name: 'Memory (MB)' }), { target: { value: '1024' } });
    fireEvent.click(within(dialog).getByRole('checkbox', { name: /Mount attached folders/ }));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(api.callsTo('profiles.create')).toHaveLength(1));
    expect(api.callsTo('profiles.create')[0]).toMatchObject({
      name: 'offline',
      egress: 'none',
      mountWorkspace: false,
      limits: { memoryMb: 1024, cpus: 2, pids: 512 },
    });
    expect(await within(dialog).findByRole('button', { name: 'offline' })).toBeTruthy();
    expect(within(dialog).getByRole('status').textContent).toBe('Saved.');
  });

  it('names each allowlist entry it cannot use beside the field, by line, sends nothing, and keeps what was typed', async () => {
    const { api } = renderWithApp(<ProfilesDialog onClose={() => {}} />, { profiles: [profileView('default')] });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create profile' }));
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Name' }), { target: { value: 'tight' } });
    const hosts = within(dialog).getByRole('textbox', { name: /Allowed hosts/ }) as HTMLTextAreaElement;
    const typed = 'github.com\n1.2.3.4\n\n*.npmjs.org:99999\npypi.org';
    fireEvent.change(hosts, { target: { value: typed } });
    // Not while typing: a half-typed entry is not an error yet.
    expect(hosts.getAttribute('aria-invalid')).toBeNull();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(hosts.getAttribute('aria-invalid')).toBe('true'));
    expect(document.activeElement).toBe(hosts);
    const problems = within(dialog).getByRole('list', { name: 'Allowlist entries Berth cannot use' });
    expect([...problems.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'Line 2: "1.2.3.4" looks like an IP address; the allowlist takes host names only.',
      'Line 4: "*.npmjs.org:99999": a port is between 1 and 65535.',
    ]);
    // Said once, beside the field: no second message at the foot of the form, nothing sent.
    expect(within(dialog).queryByRole('alert')).toBeNull();
    expect(api.callsTo('profiles.create')).toEqual([]);
    expect(hosts.value).toBe(typed);
    // Fixed: the list goes, and the profile is made.
    fireEvent.change(hosts, { target: { value: 'github.com\n*.npmjs.org:8443\npypi.org' } });
    expect(within(dialog).queryByRole('list', { name: 'Allowlist entries Berth cannot use' })).toBeNull();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(api.callsTo('profiles.create')).toHaveLength(1));
    expect(api.callsTo('profiles.create')[0]).toMatchObject({ name: 'tight', egressAllow: ['github.com', '*.npmjs.org:8443', 'pypi.org'] });
  });

  it("says beside the network that the allowlist needs this computer's Docker as soon as another engine is picked, and saves nothing until the network fits", async () => {
    const { api } = renderWithApp(<ProfilesDialog onClose={() => {}} />, { profiles: [profileView('default')] });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create profile' }));
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Name' }), { target: { value: 'build-box' } });
    const network = within(dialog).getByRole('combobox', { name: 'Network' }) as HTMLSelectElement;
    const said = /^The allowlist needs this computer's Docker engine/;
    expect(within(dialog).queryByText(said)).toBeNull();
    for (const kind of ['ssh', 'tcp', 'podman']) {
      fireEvent.change(within(dialog).getByRole('combobox', { name: 'Engine' }), { target: { value: kind } });
      // Before: nothing here; main saved it and every chat of it failed to start.
      expect(within(dialog).getByText(said).textContent).toBe(
        "The allowlist needs this computer's Docker engine: its proxy runs here, so sandboxes on another machine or on Podman cannot use it. Pick None or Open for this engine.",
      );
      expect(network.getAttribute('aria-invalid')).toBe('true');
    }
    fireEvent.change(within(dialog).getByRole('combobox', { name: 'Engine' }), { target: { value: 'ssh' } });
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Engine address' }), { target: { value: 'ssh://me@build-box' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(document.activeElement).toBe(network));
    expect(api.callsTo('profiles.create')).toEqual([]);
    fireEvent.change(network, { target: { value: 'none' } });
    expect(within(dialog).queryByText(said)).toBeNull();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(api.callsTo('profiles.create')).toHaveLength(1));
    expect(api.callsTo('profiles.create')[0]).toMatchObject({ name: 'build-box', egress: 'none', engine: { kind: 'ssh', url: 'ssh://me@build-box' } });
  });

  it('edits a profile and shows a refusal with its hint', async () => {
    const { api } = renderWithApp(<ProfilesDialog onClose={() => {}} />, { profiles: [profileView('default'), profileView('work')] });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    fireEvent.click(await within(dialog).findByRole('button', { name: 'work' }));
    fireEvent.change(within(dialog).getByRole('spinbutton', { name: 'CPUs' }), { target: { value: '4' } });
    api.fail('profiles.update', 'invalid_request', 'A profile has at most 2 CPUs here.', 'Lower the CPUs.');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain('A profile has at most 2 CPUs here.');
    expect(alert.textContent).toContain('Lower the CPUs.');
    expect(api.callsTo('profiles.update')).toEqual([{ name: 'work', settings: { limits: { memoryMb: 2048, cpus: 4, pids: 512 } } }]);
  });

  it("shows the engine's CPUs and memory beside the limits before saving; the CPUs input's maximum follows the engine", async () => {
    const { api } = renderWithApp(<ProfilesDialog onClose={() => {}} />, { profiles: [profileView('default'), profileView('work')] });
    api.resources = { cpus: 2, memoryBytes: 3.8 * 1024 ** 3 };
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    fireEvent.click(await within(dialog).findByRole('button', { name: 'work' }));
    const cpus = within(dialog).getByRole('spinbutton', { name: 'CPUs' }) as HTMLInputElement;
    const memory = within(dialog).getByRole('spinbutton', { name: 'Memory (MB)' }) as HTMLInputElement;
    await waitFor(() => expect(cpus.max).toBe('2'));
    expect(within(dialog).getByText('This engine has 2 CPUs.')).toBeTruthy();
    expect(cpus.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(cpus.getAttribute('aria-describedby') as string)?.textContent).toBe('This engine has 2 CPUs.');
    expect(memory.getAttribute('aria-describedby')).toBeTruthy();
    expect(within(dialog).getByText('This engine has 3.8 GiB of memory.')).toBeTruthy();
  });

  it("saves the agent's provider, model and approval with the profile", async () => {
    const { api } = renderWithApp(<ProfilesDialog onClose={() => {}} />, { profiles: [profileView('default'), profileView('work')] });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    fireEvent.click(await within(dialog).findByRole('button', { name: 'work' }));
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Provider URL' }), { target: { value: ' http://127.0.0.1:11434/v1 ' } });
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Model' }), { target: { value: 'qwen3' } });
    const approval = within(dialog).getByRole('combobox', { name: 'Approval' });
    expect([...(approval as HTMLSelectElement).options].map((o) => [o.value, o.text])).toEqual([
      ['ask', 'Ask before each command'],
      ['auto', 'Run automatically'],
    ]);
    fireEvent.change(approval, { target: { value: 'auto' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    await within(dialog).findByText('Saved.');
    expect(api.callsTo('profiles.update')).toEqual([
      { name: 'work', settings: { agent: { baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen3', approval: 'auto' } } },
    ]);
  });

  it('shares another profile’s provider: its URL and key fields give way to a note, and the save names the profile', async () => {
    const { api } = renderWithApp(<ProfilesDialog onClose={() => {}} />, { profiles: [profileView('default'), profileView('work')] });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    fireEvent.click(await within(dialog).findByRole('button', { name: 'work' }));
    const provider = within(dialog).getByRole('combobox', { name: 'Provider' });
    expect([...(provider as HTMLSelectElement).options].map((o) => o.text)).toEqual(['Its own', 'The same as “default”']);
    fireEvent.change(provider, { target: { value: 'default' } });
    expect(within(dialog).queryByRole('textbox', { name: 'Provider URL' })).toBeNull();
    within(dialog).getByText(/Uses the provider URL and API key of the profile “default”/);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save profile' }));
    await within(dialog).findByText('Saved.');
    expect(api.callsTo('profiles.update')).toEqual([{ name: 'work', settings: { agent: expect.objectContaining({ providerFrom: 'default' }) } }]);
  });

  it('asks before dropping edits that are not saved, on switching profile or closing', async () => {
    let closed = 0;
    renderWithApp(<ProfilesDialog onClose={() => closed++} initialProfile="default" />, { profiles: [profileView('default'), profileView('work')] });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    const memory = () => within(dialog).getByRole('spinbutton', { name: 'Memory (MB)' }) as HTMLInputElement;
    await within(dialog).findByRole('form', { name: 'Edit profile default' });
    fireEvent.change(memory(), { target: { value: '4096' } });

    fireEvent.click(within(dialog).getByRole('button', { name: 'work' }));
    const ask = within(dialog).getByRole('alert');
    expect(ask.textContent).toMatch(/changes that are not saved/);
    fireEvent.click(within(ask).getByRole('button', { name: 'Keep editing' }));
    expect(memory().value).toBe('4096');
    expect(within(dialog).getByRole('form', { name: 'Edit profile default' })).toBeTruthy();

    fireEvent.click(within(dialog).getAllByRole('button', { name: 'Close' }).at(-1) as HTMLElement);
    expect(closed).toBe(0);
    fireEvent.click(within(within(dialog).getByRole('alert')).getByRole('button', { name: 'Discard changes' }));
    expect(closed).toBe(1);
  });

  it('closes at once when nothing was changed', async () => {
    let closed = 0;
    renderWithApp(<ProfilesDialog onClose={() => closed++} initialProfile="default" />, { profiles: [profileView('default')] });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    await within(dialog).findByRole('form', { name: 'Edit profile default' });
    fireEvent.click(within(dialog).getAllByRole('button', { name: 'Close' }).at(-1) as HTMLElement);
    expect(closed).toBe(1);
  });

  it('while a profile\'s chats are deleted, says how many are left as main removes each', async () => {
    const { api } = renderWithApp(<ProfilesDialog onClose={() => {}} initialProfile="work" />, {
      profiles: [profileView('default'), profileView('work')],
      chats: [chatView({ title: 'A', profile: 'work' }), chatView({ title: 'B', profile: 'work' }), chatView({ title: 'C', profile: 'work' })],
    });
    // As main does: each chat goes with its own chats.changed, the call answers after the last.
    let finish: () => void = () => {};
    api.handle('profiles.delete', ({ name }) => {
      const removeOne = () => {
        const chat = api.chats.find((c) => c.profile === name);
        api.chats = api.chats.filter((c) => c !== chat);
        api.emit('chats.changed', { chatId: chat?.id ?? null });
      };
      removeOne();
      return new Promise((resolve) => {
        finish = () => {
          removeOne();
          removeOne();
          api.profiles = api.profiles.filter((p) => p.name !== name);
          api.emit('chats.changed', { chatId: null });
          resolve({ removedChats: 3 });
        };
      });
    });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    await within(dialog).findByRole('form', { name: 'Edit profile work' });
    fireEvent.click(await within(dialog).findByRole('button', { name: 'Delete profile…' }));
    const ask = await within(dialog).findByRole('alert', { name: 'Delete profile work?' });
    await waitFor(() => expect(within(ask).getByRole('button', { name: 'Delete profile and 3 chats' })).toBeTruthy());
    fireEvent.click(within(ask).getByRole('button', { name: 'Delete profile and 3 chats' }));
    await waitFor(() => expect(within(ask).getByRole('status').textContent).toBe('Deleting… 2 chats left'));
    expect((within(ask).getByRole('button', { name: 'Deleting…' }) as HTMLButtonElement).disabled).toBe(true);
    finish();
    await waitFor(() => expect(within(dialog).queryByRole('button', { name: 'work' })).toBeNull());
  });

  it("warns that its chats' Review changes not yet applied go with the profile", async () => {
    const review = (id: string, changedCount: number) => [
      { hostPath: `/home/me/${id}`, containerPath: '/workspace/x', readOnly: false, mode: 'review' as const, review: { ...reviewInfo(id), changedCount }, attachedAt: 1, writeWarning: null },
    ];
    renderWithApp(<ProfilesDialog onClose={() => {}} initialProfile="work" />, {
      profiles: [profileView('default'), profileView('work')],
      chats: [
        chatView({ id: 'a', title: 'A', profile: 'work', attachments: review('a', 2) }),
        chatView({ id: 'b', title: 'B', profile: 'work', attachments: review('b', 1) }),
        chatView({ id: 'c', title: 'C', profile: 'default', attachments: review('c', 5) }),
      ],
    });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    await within(dialog).findByRole('form', { name: 'Edit profile work' });
    fireEvent.click(await within(dialog).findByRole('button', { name: 'Delete profile…' }));
    const ask = await within(dialog).findByRole('alert', { name: 'Delete profile work?' });
    await waitFor(() => expect(ask.textContent).toContain('3 changed files in their Review copies are not applied to your folders and will be lost'));
  });

  it('deletes a profile after saying its chats go with it; the default profile offers no delete', async () => {
    const { api } = renderWithApp(<ProfilesDialog onClose={() => {}} initialProfile="work" />, {
      profiles: [profileView('default'), profileView('work')],
      chats: [chatView({ title: 'A', profile: 'work' }), chatView({ title: 'B', profile: 'work' }), chatView({ title: 'C', profile: 'default' })],
    });
    const dialog = screen.getByRole('dialog', { name: 'Profiles' });
    await within(dialog).findByRole('form', { name: 'Edit profile work' });
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Delete profile…' })).toBeTruthy());
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete profile…' }));
    const ask = await within(dialog).findByRole('alert', { name: 'Delete profile work?' });
    await waitFor(() => expect(ask.textContent).toMatch(/Its 2 chats are deleted with it, with their containers and home folders/));
    expect(api.callsTo('profiles.delete')).toEqual([]);
    fireEvent.click(within(ask).getByRole('button', { name: 'Delete profile and 2 chats' }));
    await waitFor(() => expect(api.callsTo('profiles.delete')).toEqual([{ name: 'work' }]));
    await waitFor(() => expect(within(dialog).queryByRole('button', { name: 'work' })).toBeNull());

    fireEvent.click(within(dialog).getByRole('button', { name: 'default' }));
    await within(dialog).findByRole('form', { name: 'Edit profile default' });
    expect(within(dialog).queryByRole('button', { name: 'Delete profile…' })).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { LABEL } from '../../policy/containerSpec.js';
import { selectOrphans, type LabelledContainer } from './orphans.js';

const ME = 'instance-me';
const OTHER = 'instance-other';

function container(id: string, instance: string, profile: string, chat: string): LabelledContainer {
  return { id, labels: { [LABEL.app]: 'berth', [LABEL.instance]: instance, [LABEL.profile]: profile, [LABEL.chat]: chat } };
}

const liveChats = new Set(['live-1', 'live-2']);
const liveProfiles = new Set(['default', 'work']);
const select = (cs: LabelledContainer[]): string[] =>
  selectOrphans(cs, ME, (c) => liveChats.has(c), (p) => liveProfiles.has(p)).map((c) => c.id);

describe('selectOrphans', () => {
  it("removes this instance's containers whose chat is gone", () => {
    expect(select([container('a', ME, 'default', 'deleted-chat'), container('b', ME, 'work', 'live-1')])).toEqual(['a']);
  });

  it('keeps the containers of live chats', () => {
    expect(select([container('a', ME, 'default', 'live-1'), container('b', ME, 'work', 'live-2')])).toEqual([]);
  });

  it("removes a shared container (chat label '') only when its profile is gone", () => {
    expect(select([container('kept', ME, 'work', ''), container('gone', ME, 'deleted-profile', '')])).toEqual(['gone']);
  });

  it('removes every container of a deleted profile, even one whose chat id is still known', () => {
    expect(select([container('a', ME, 'deleted-profile', 'live-1')])).toEqual(['a']);
  });

  it("never touches another instance's containers, even orphaned ones", () => {
    expect(
      select([
        container('x', OTHER, 'default', 'deleted-chat'),
        container('y', OTHER, 'deleted-profile', ''),
        { id: 'z', labels: { [LABEL.app]: 'berth' } },
      ]),
    ).toEqual([]);
  });

  it('does not care whether the container is running: the decision is by labels only', () => {
    const running = { ...container('r', ME, 'default', 'deleted-chat'), state: 'running' };
    const stopped = { ...container('s', ME, 'default', 'deleted-chat'), state: 'exited' };
    expect(selectOrphans([running, stopped], ME, (c) => liveChats.has(c), (p) => liveProfiles.has(p))).toEqual([running, stopped]);
  });
});

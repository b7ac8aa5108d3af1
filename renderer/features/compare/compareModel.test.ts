import { describe, expect, it } from 'vitest';
import type { ChatView } from '../../../shared/contract';
import { chatView, reviewInfo } from '../../test/fakeViews';
import { attemptsOn, attemptsToClose } from './compareModel';

const REPO = '/home/me/site';
const on = (id: string, attemptOf: string | null, mode: 'review' | 'readonly' = 'review', hostPath = REPO): ChatView =>
  chatView({ id, title: id, attemptOf, attachments: [{ hostPath, containerPath: '/workspace/site', readOnly: mode === 'readonly', mode, review: reviewInfo(id), attachedAt: 1, writeWarning: null }] });

describe('attemptsOn', () => {
  const first = on('first', null);
  const second = on('second', 'first');
  const third = on('third', 'first');
  const mine = on('mine', null);
  const otherFolder = on('elsewhere', 'first', 'review', '/home/me/other');
  const readOnly = on('reading', 'first', 'readonly');
  const chats = [first, mine, second, otherFolder, readOnly, third];

  it('is the chat and the other attempts at its message with the folder in Review mode, never another chat on the folder', () => {
    expect(attemptsOn(chats, first, REPO).map((c) => c.id)).toEqual(['first', 'second', 'third']);
    expect(attemptsOn(chats, third, REPO).map((c) => c.id)).toEqual(['third', 'first', 'second']);
    expect(attemptsOn(chats, mine, REPO).map((c) => c.id)).toEqual(['mine']);
  });

  it('closes every compared attempt but the one kept, and nothing else', () => {
    expect(attemptsToClose(attemptsOn(chats, first, REPO), 'second').map((c) => c.id)).toEqual(['first', 'third']);
  });
});

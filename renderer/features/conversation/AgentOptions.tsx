/**
 * The chat's own agent options above the message box: the model (picked from the provider's
 * list, remembered for this chat), whether the repository's AGENTS.md is used, and the tokens the
 * provider reported for the chat so far against the model's context window.
 */
import { useState } from 'react';
import type { AgentMessage } from '../../../shared/contract';
import { useActions, useServices } from '../../services/context';
import { conversationActions } from './actions';
import type { Conversation } from '../../stores/agent';

function totals(messages: readonly AgentMessage[]): { input: number; output: number } {
  let input = 0;
  let output = 0;
  for (const m of messages) {
    input += m.usage?.input ?? 0;
    output += m.usage?.output ?? 0;
  }
  return { input, output };
}

export function AgentOptions({ chatId, conversation, profileModel }: { chatId: string; conversation: Conversation; profileModel: string | null }) {
  const { stores } = useServices();
  const conversationCalls = useActions(conversationActions);
  const [models, setModels] = useState<string[] | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const { options, contextWindow, running } = conversation;
  const current = options.model ?? profileModel;
  const used = totals(conversation.messages);
  const loadModels = () => {
    if (models !== null) return;
    conversationCalls.models(chatId).then(
      (list) => setModels(list),
      (error: unknown) => setListError(error instanceof Error ? error.message : String(error)),
    );
  };
  const choices = [...new Set([...(current ? [current] : []), ...(models ?? [])])];
  return (
    <div className="agent-options" role="group" aria-label="Agent options">
      <label>
        Model{' '}
        <select
          aria-label="Model for this chat"
          value={current ?? ''}
          disabled={running}
          onFocus={loadModels}
          onPointerDown={loadModels}
          onChange={(e) => void stores.agent.getState().setOptions(chatId, { model: e.target.value === profileModel ? null : e.target.value })}
        >
          {choices.map((id) => (
            <option key={id} value={id}>
              {id}
              {id === profileModel ? ' (profile)' : ''}
            </option>
          ))}
        </select>
      </label>
      {listError && <span className="muted">Could not list models: {listError}</span>}
      <label>
        <input
          type="checkbox"
          checked={options.instructions}
          onChange={(e) => void stores.agent.getState().setOptions(chatId, { instructions: e.target.checked })}
        />{' '}
        Use AGENTS.md
      </label>
      <span className="muted" aria-label="Tokens in this chat">
        {used.input.toLocaleString('en-US')} tokens in · {used.output.toLocaleString('en-US')} out
        {contextWindow !== null ? ` · context window ${contextWindow.toLocaleString('en-US')}` : ''}
      </span>
    </div>
  );
}

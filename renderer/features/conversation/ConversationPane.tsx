/**
 * The selected chat's conversation with its agent: the messages, what waits for the user's
 * approval, why a turn failed, and the composer (or, with no model set, the way to set one).
 */
import './conversation.css';
import { useEffect, useRef } from 'react';
import { resolveProvider } from '../../../shared/agentProvider';
import type { ChatView, ProfileView } from '../../../shared/contract';
import { useAgent, useProfiles, useServices } from '../../services/context';
import { EMPTY_CONVERSATION } from '../../stores/agent';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { AgentOptions } from './AgentOptions';
import { ApprovalPrompt } from './ApprovalPrompt';
import { Composer } from './Composer';
import { focusConversation, shouldFocusOnOpen } from './focusConversation';
import { MessageList } from './MessageList';

export interface ConversationPaneProps {
  chat: ChatView;
  /** Opens the Profiles dialog at this profile. */
  onOpenProfile(profile: string): void;
}

/** What the agent still needs before it can answer (its own provider or the one it shares): main refuses a turn without both. */
function missingSettings(profile: ProfileView, profiles: readonly ProfileView[]): string | null {
  const agent = resolveProvider(profile, (name) => profiles.find((p) => p.name === name));
  if ('missing' in agent) return 'provider';
  if (agent.model === null && agent.baseUrl === null) return 'provider URL or model';
  if (agent.model === null) return 'model';
  if (agent.baseUrl === null) return 'provider URL';
  return null;
}

export function ConversationPane({ chat, onOpenProfile }: ConversationPaneProps) {
  const { stores, askToNotify } = useServices();
  const conversation = useAgent((s) => s.byChat[chat.id]) ?? EMPTY_CONVERSATION;
  const profiles = useProfiles((s) => s.profiles);
  const profile = profiles.find((p) => p.name === chat.profile);
  const agent = stores.agent.getState;
  const chatId = chat.id;
  // Once the profile is known (message box or set-up button), the opened chat takes the focus:
  // once per opening of a chat (the pane stays mounted across switches).
  const focusedOnOpen = useRef<string | null>(null);
  const profileKnown = profile !== undefined;
  useEffect(() => {
    if (focusedOnOpen.current === chatId || !profileKnown) return;
    focusedOnOpen.current = chatId;
    if (shouldFocusOnOpen(document.activeElement)) focusConversation();
  }, [chatId, profileKnown]);
  const { messages, running, approvals, error, loaded, loadError, answering } = conversation;
  // Why a turn ended is saved in the conversation as its last message: said there, not twice.
  const last = messages[messages.length - 1];
  const inList = (e: { message: string }) => last?.role === 'error' && last.content.startsWith(e.message);
  // An answered prompt goes, and with it the focused button: the focus goes on to the next
  // prompt, else to the message box (not to the page body, from which Tab reaches the terminal).
  const approvalsRef = useRef<HTMLDivElement>(null);
  const answered = useRef<string | null>(null);
  useEffect(() => {
    if (answered.current === null || approvals.some((a) => a.approvalId === answered.current)) return;
    answered.current = null;
    const active = document.activeElement;
    if (active !== null && active !== document.body && !approvalsRef.current?.contains(active)) return;
    const next = approvalsRef.current?.querySelector<HTMLElement>('[role="group"]');
    if (next) next.focus();
    else focusConversation();
  }, [approvals]);
  // Unknown until the profiles are loaded: say nothing rather than flash the notice. A running
  // turn keeps its Stop button even if the settings were emptied meanwhile.
  const missing = profile && !running ? missingSettings(profile, profiles) : null;

  return (
    <section className="conversation" aria-label="Conversation">
      {loadError && (
        <div className="alert-with-action">
          <ErrorAlert error={loadError} />
          <button type="button" onClick={() => void agent().load(chatId)}>
            Load again
          </button>
        </div>
      )}
      {messages.length > 0 ? (
        // Keyed: the scroll position and the measured rows are this chat's.
        <MessageList key={`messages:${chatId}`} messages={messages} running={running} />
      ) : (
        <div className="conversation-empty">
          {!loaded ? (
            <p className="muted">Loading the conversation…</p>
          ) : (
            <>
              <p>No messages yet.</p>
              <p className="muted">The agent works inside this chat&apos;s sandbox: ask it to run, read or change something there.</p>
            </>
          )}
        </div>
      )}
      <div className="conversation-foot">
        {running && approvals.length > 0 && (
          <p role="status" className="agent-working agent-waiting">
            Waiting for your approval
          </p>
        )}
        {running && approvals.length === 0 && (
          <p role="status" className="agent-working">
            <span className="spinner" aria-hidden="true" />
            The agent is working…
          </p>
        )}
        {/* Mounted always, so a screen reader announces the first prompt that appears in it. */}
        <div className="approvals" aria-live="polite" ref={approvalsRef}>
          {approvals.map((request) => (
              <ApprovalPrompt
                key={request.approvalId}
                request={request}
                busy={answering.includes(request.approvalId)}
                onAnswer={(decision, reason) => {
                  answered.current = request.approvalId;
                  void agent().approve(chatId, request.approvalId, decision, reason);
                }}
              />
            ))}
        </div>
        {conversation.allowedForChat && (
          <div className="allow-note" role="note" aria-label="Allowed for this chat">
            <span>Commands in this chat run without asking (you chose Allow for this chat).</span>
            <button type="button" className="small" onClick={() => void agent().revokeAllow(chatId)}>
              Ask again
            </button>
          </div>
        )}
        {error && !inList(error) && <ErrorAlert error={error} onDismiss={() => agent().dismissError(chatId)} />}
        {missing ? (
          <div className="agent-setup" role="note">
            <p>
              The profile <strong>{chat.profile}</strong> has no {missing} set, so the agent cannot answer yet.
            </p>
            <button type="button" onClick={() => onOpenProfile(chat.profile)}>
              Open profile settings
            </button>
          </div>
        ) : (
          <>
          <AgentOptions chatId={chatId} conversation={conversation} profileModel={profile?.settings.agent.model ?? null} />
          <Composer
            // Keyed: the box shows this chat's draft (Composer keeps drafts by chat).
            key={`composer:${chatId}`}
            chatId={chatId}
            running={running}
            waiting={approvals.length > 0}
            ready={loaded}
            sending={conversation.sending}
            stopping={conversation.stopping}
            onSend={(text) => {
              // A command of this chat may wait for approval while the user is elsewhere: the
              // browser asks for the permission to say so now, on the user's own action.
              if (profile?.settings.agent.approval === 'ask') askToNotify?.();
              return agent().send(chatId, text);
            }}
            onStop={() => void agent().stop(chatId)}
          />
          </>
        )}
      </div>
    </section>
  );
}

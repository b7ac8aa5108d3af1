/**
 * Generates docs/api.md from the contract (shared/contract.ts) and the error codes
 * (shared/errors.ts): `npm run docs:api`. electron/main/host/apiDoc.test.ts fails when the
 * committed file differs from what this renders, so the document never drifts from the code.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { events, methods, type EventName, type MethodName } from '../shared/contract.js';
import { ERROR_CODES, type ErrorCode } from '../shared/errors.js';
import { ConfirmFolderRequest, FOLDER_CHOICE_TTL_MS, PickFolderRequest, PickFolderResult } from '../shared/folderPicker.js';
import {
  RPC_BERTH_ERROR, RPC_INTERNAL_ERROR, RPC_INVALID_PARAMS, RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND, RPC_PARSE_ERROR,
} from '../electron/main/host/jsonRpc.js';

export const API_DOC_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'api.md');

/** One line per method. A method missing here renders as undocumented (and the test says so). */
export const METHOD_DESCRIPTIONS: Partial<Record<MethodName, string>> = {
  'profiles.list': 'Lists every profile with its settings, network and a plain description of its boundary.',
  'profiles.create': 'Creates a profile; settings not given take their defaults.',
  'profiles.update': "Changes a profile's settings.",
  'profiles.delete': 'Deletes a profile with all its chats, containers, network and homes (not the default profile). The chats go a few at a time, each with its own `chats.changed`, so a client sees how many are left; the answer comes after the last.',
  'chats.create': 'Creates a chat in a profile (the default one unless named); its sandbox starts on its first command.',
  'chats.rename': "Changes a chat's title.",
  'chats.list': 'Lists the chats, of one profile or of all, with their attached folders.',
  'chats.delete': 'Deletes a chat, its containers and its home; `removed` is false when it did not exist.',
  'chats.fork': "A new chat from a turn of another: the conversation up to that turn ('after': as it ended; 'before': just before the user's message), each Review copy as it was there, a copy of the chat's home, the same profile and folders, and its own container. A chat that writes a folder directly (read-write) is refused with why.",
  'chats.retry': "Try again in a new chat: forks before the chat's last turn and sends the same message there; at most 3 chats try one message.",
  'tasks.register': "Registers a task (a subagent) of a chat; with `parentId` it shares that task's container.",
  'workspace.attach': "Attaches a folder of this computer to a chat at /workspace (checked, resolved through links). Mode 'review' (the default) mounts the chat's own copy of the folder instead, kept in Berth's data dir; 'readwrite' mounts the folder itself; 'readonly' mounts it read-only. Takes workspace.attachPreview's `confirm` token, required when the attach stops what runs in the chat's terminals.",
  'workspace.detach': 'Detaches a folder from a chat; the container is recreated without it on the next command. Takes workspace.attachPreview\'s `confirm` token, required when the detach stops what runs in the chat\'s terminals.',
  'workspace.attachPreview':
    "What an attach or detach would do, decided by main for every client: `recreates` (the chat's running container is replaced, stopping what runs in its terminals; false for a Review-mode copy that fills or leaves the slot of the warm sandbox the chat took) and `reason` (why), `running` (what runs in the chat's terminals), `needsConfirmation` (the change stops what runs: ask the user first, with `summary`), and when the container is replaced a one-use `token`: pass it as `confirm` to workspace.attach or workspace.detach, which refuse a change that needs confirmation without it. Without `path`, an attach is judged for a folder that fits the slot. A token is good once, only for the client it was given to and the same chat, action, folder and mode.",
  'sandbox.exec': "Runs one command in the chat's (or task's) sandbox and returns its output, exit code and working directory.",
  'sandbox.interrupt': "Interrupts the command running in the chat's (or task's) sandbox, if any.",
  'sandbox.status': "Reports the state of the chat's sandbox: container, image, network, last error.",
  'sandbox.stop': "Stops the chat's container (kept, not removed); the next command starts it again.",
  'sandbox.watchStats': "Streams the chat's sandbox use (CPU, memory, processes against its limits) to this client as sandbox.stats events until unwatched or the client goes; watching is false when no container runs.",
  'sandbox.unwatchStats': "Stops this client's stream of the chat's sandbox use; the engine's stream ends when nobody watches.",
  'sandbox.usage': "The size of the chat's home folder and of its container's writable layer.",
  'engine.status': 'Reports whether the Docker engine answers, its version, and what to do when it does not.',
  'engine.list': 'Lists every engine Berth talks to (each profile\'s), each with its own health: the status bar\'s engines.',
  'engine.check':
    "Pings the engine a setting names (the profile form's Check connection). Key files are read only when they are the ones saved with `profile` (else: save first); an engine that does not answer gets one sentence whatever the reason (Berth's log has the engine client's words) unless the setting is the profile's saved one; at most 6 checks a minute.",
  'engine.contexts': 'Lists the Docker contexts in the user\'s Docker config, as `docker context ls` does, marking the current one.',
  'images.status': "Lists the images Berth prepares in the background (its full default sandbox image, the egress proxy image, profiles' setup commands), each with its state and progress, for the status bar.",
  'engine.images': "Lists the engine's local images (repo:tag) and Berth's own base image, for a profile's Image field.",
  'engine.resources': "The engine's CPUs and memory (docker info), shown beside a profile's limits: a sandbox cannot have more.",
  'workspace.browse': 'Lists the folders under a path of this computer (never files), for the browser folder picker.',
  'terminal.open': "Opens an interactive shell with a TTY in the chat's container; output arrives as `terminal.data` events.",
  'terminal.list': "Lists a chat's terminals, running and ended.",
  'terminal.busy': "What the user runs in a chat's terminals (their shells left out), per terminal: what recreating its sandbox (attach, detach) would stop.",
  'terminal.input': "Sends keystrokes or pasted text to a terminal's shell.",
  'terminal.resize': "Changes a terminal's size in columns and rows.",
  'terminal.replay': "Returns a terminal's recent output, to repaint it after switching back to its chat.",
  'terminal.ack': 'Flow control: tells the server how many more characters of output the client has written to the screen.',
  'terminal.close': "Closes a terminal and ends its shell.",
  'agent.waiting': 'Every approval waiting for the user in any chat, so that a page that just connected or reconnected can badge those chats before they are opened.',
  'agent.history': "The chat's conversation with its agent, oldest first (subagents' messages carry their task and the call that started them), whether a turn is running, and approvals waiting.",
  'agent.send': "Sends the user's message and starts the agent's turn; its progress arrives as `agent.*` events.",
  'agent.stop': 'Stops the running turn: the model stream, a waiting approval, and any command it started in the sandbox.',
  'agent.approve': "Answers an approval: allow this command once, allow the chat's commands while Berth runs, or deny (nothing runs).",
  'agent.setOptions': "Sets a chat's own agent options: whether its AGENTS.md files are given to the agent, and the model it uses (null: the profile's).",
  'agent.models': "The models the profile's provider lists (GET /v1/models) and the chat's current one, for the chat's model picker.",
  'agent.revokeAllow': 'Takes back "Allow for this chat": the chat\'s next command asks again.',
  'agent.setKey': "Saves the profile's provider API key, sealed and bound to the profile and to its provider URL's origin; it is never returned.",
  'agent.clearKey': "Forgets the profile's API key.",
  'agent.keyStatus': 'Whether the profile has a saved key, and the origin it is sent to.',
  'review.changes': "The chat's Review-mode copies and their changed files against the folder as it was copied: status, counts, binary and too-large flags, unified diffs up to an inline budget.",
  'review.diff': 'One changed file with its full unified diff (for a file whose diff `review.changes` left out).',
  'review.apply': "Applies the copy's changes (all or the named files) to the user's folder, or creates (then moves on) a branch named from the chat's title, `berth/<title>`, in the user's repository, authored as the user. Refuses, with the files listed, on conflicts, symlinks leaving the folder and too-large files; nothing is half applied.",
  'review.push': "Pushes the branch `review.apply` made to the user's remote with the user's own git, credentials and configuration, the remote read from the user's real repository (never the chat's copy); a refusal is ok false with a sentence and git's words, and nothing is forced. Gives the forge's pull-request page for GitHub, GitLab, Bitbucket and Gitea remotes.",
  'review.discard': "Discards the chat's changes: stops the sandbox and resets the copy to the user's folder as it is now.",
  'review.refresh': "Brings the user's newer changes into the copy (the sandbox is stopped first); files the chat also changed are kept and listed as conflicts.",
  'review.checkpoint': 'Records a restore point of every Review-mode copy of the chat (agent turns record one by themselves).',
  'review.checkpoints': "The chat's restore points, oldest first, each with the files changed after it.",
  'review.restore': 'Restores every Review-mode copy of the chat to a checkpoint (the sandbox is stopped first; the current state is checkpointed).',
  'review.undoTurn': 'Undo this turn: restores the copies to the checkpoint taken when the given user message started its agent turn.',
  'review.applyLines': "Applies only the chosen lines (removed by old number, added by new number; a hunk is all its lines) of text files to the user's folder as it is now: Berth makes each file's new text from git's diff of the copy and the folder's bytes (no git apply, no work tree), and writes only when every chosen hunk fits; the rest stays in the copy. A hunk that no longer fits without ambiguity is returned with base, mine and the chat's lines, and nothing is written. Refused when the copy's version moved on.",
  'review.conflict': "A file both the user and the chat changed, three ways: git merge-file's regions, merged ones as they are and conflicting ones with the base's, the user's and the chat's lines.",
  'review.resolve': "Settles a conflicting file with one choice per region (mine, the chat's, or text) and applies it to the user's folder and the chat's copy (the sandbox is stopped first); undoable with review.undoApply.",
  'review.comments': "The chat's review comments that are not resolved, each placed on its lines now, or marked outdated when those lines changed.",
  'review.comment': "A comment on lines of a changed file (the chat's version, or removed lines), with the quoted lines kept; it joins the review draft.",
  'review.commentClose': 'Resolves a comment, or deletes a draft.',
  'review.sendComments': "Sends the review draft to the chat's agent as one message: each comment's file, line range, quoted lines and words; the comments become sent.",
  'review.undoApply': "Takes back the last files apply to the user's folder: each file it wrote, deleted or renamed is put back as it was and the folders it made go; the chat's copy keeps its work, listed again. Nothing is undone (ok false, the files named) when the user changed any of them since.",
  'network.log': "The chat's requests through its profile's egress proxy, allowed and refused (time, host, port, bytes, why refused), oldest first, the profile's egress mode, the chat's own allowances, and the profile's HTTP-only rules (entries with methods).",
  'ports.list': "The ports the chat's running sandbox listens on (read inside it from /proc/net/tcp and tcp6), each with its open forward; `running` false when no sandbox runs (none is started).",
  'ports.open': "Opens a port's forward: a listener on 127.0.0.1 only, relayed into the sandbox through the Engine API; the URL's secret becomes a cookie for that browser, and every other request is refused (README: Ports).",
  'ports.close': "Ends a port's forward: its listener on this computer stops answering.",
  'environment.detect': "The chat's attached folders that hold a devcontainer.json (their files, the folder's remembered choice) and the chat's project environment's status (README: Environments).",
  'environment.use': "Uses a folder's devcontainer.json for the chat: starts from the image prepared from the same files, or builds it on the profile's network and runs its create-time commands, then its start commands; remembered for the folder. Progress arrives as sandbox.progress.",
  'environment.rebuild': "Builds and prepares the chat's project environment again, whatever was prepared before; a failure leaves the chat on the image it had.",
  'environment.settings': 'How many prepared environment images Berth keeps (older ones no chat uses are removed); `keep` sets it.',
  'network.allow': "Allows host:port (the bare host, ports 80 and 443, when port is null) once (this chat, 10 minutes), for this chat, or on the profile's list; the running proxy takes it before this answers, so the next request passes. A chat's allowance never reaches the profile's other chats. IP addresses are refused.",
  'network.revoke': "Ends a chat's own allowance (once or for the chat); the running proxy takes it before this answers, so the next request to it is refused.",
  'network.startingPoint': "Whether New chat in this profile asks the first-chat question (how open the network is: locked, balanced, open) first: only the first New chat of a fresh data folder, in the default profile whose network nobody has set, never once answered.",
  'network.chooseStartingPoint': "The first-chat question's answer: sets the default profile's network (as a save in the profile form would, with its checks); applied is false when it had been answered already.",
};

export const EVENT_DESCRIPTIONS: Partial<Record<EventName, string>> = {
  'sandbox.progress': "Progress of a sandbox's bring-up: pulling the image, creating, starting, ready.",
  'sandbox.status': "A chat's sandbox changed state.",
  'engine.status': 'The Docker engine became reachable or unreachable.',
  'images.status': 'An image Berth prepares in the background changed state or made progress: the whole list again.',
  'sandbox.stats': "A reading of a watched sandbox's use: cores in use, memory and processes, each beside its limit.",
  'sandbox.pressure': 'A running sandbox came near (90 %) its memory or process limit, or went back below.',
  'terminal.data': 'Output of a terminal, in order; acknowledge it with `terminal.ack` once written to the screen.',
  'terminal.exit': 'A terminal ended: its shell exited or its sandbox stopped.',
  'chats.changed': 'Chats or profiles changed (created, renamed, deleted, attached): fetch the lists again.',
  'agent.message': 'A conversation message was added or changed (a tool call progressed, an answer finished): replace it whole.',
  'agent.delta': 'More streamed text for a message that is not done yet.',
  'network.request': "A request through a chat's egress proxy finished, allowed or refused.",
  'environment.status': "A chat's project environment changed: preparing, ready (which file, prepared when, its size, what was ignored) or failed.",
  'network.grants': "A chat's own allowances changed: granted, revoked, or an \"Allow once\" ran out.",
  'agent.state': "A chat's turn started or ended; an error says why it ended early.",
  'agent.allowed': '"Allow for this chat" was chosen for a chat (allowed: true) or taken back (false).',
  'agent.approval': 'A command waits for the user (profiles that ask before each command).',
  'agent.approvalDone': 'An approval was answered or dropped: hide its prompt.',
  'review.changed': "A chat's count of changed files in its Review-mode copies changed (the sidebar badge).",
  'review.progress': 'Progress of making a Review-mode copy: scanning, copying (files so far of the total), indexing, done.',
};

export const ERROR_DESCRIPTIONS: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'The request does not match the contract, or asks for something that cannot be done as asked.',
  not_found: 'The chat, task, profile or terminal named does not exist (any more).',
  already_exists: 'Something with that name already exists.',
  workspace_refused: 'Berth will not share that folder with a sandbox (sensitive, missing, nested in another chat\'s folder, …).',
  workspace_changed: 'An attached folder changed since it was attached (removed, or swapped for a link), so it is not mounted.',
  engine_unreachable: 'The Docker engine does not answer, or its address is not valid.',
  image_unavailable: 'The image is not on this computer and could not be downloaded: it does not exist in its registry, you may not download it, or it could not be built.',
  registry_unreachable: 'The image is not on this computer and no registry answers to download it (offline, a proxy, an air-gapped engine).',
  network_failed: "The profile's sandbox network could not be set up; the sandbox does not start without it.",
  home_template_failed: "The profile's home template folder cannot be used.",
  container_failed: 'Docker could not create or start the container, or its shell exited at once.',
  container_vanished: 'The container stopped or was removed while in use (also: a terminal that has ended).',
  shell_failed: "The sandbox's shell stopped answering; Berth restarts it on the next command.",
  provider_not_configured: 'The profile has no provider URL or model (or a key is saved before its URL).',
  provider_auth: 'The provider refused the API key, or the key was saved for another provider origin and is not sent.',
  provider_model: 'The provider does not know the model, or the URL is not an OpenAI-compatible /v1 endpoint.',
  provider_unreachable: 'Nothing answers at the provider URL.',
  provider_failed: 'The provider failed (after retries on 429 and 5xx), sent a broken stream, or the agent ran out of steps.',
  agent_busy: 'The chat\'s agent is still working on the last message.',
  secret_unavailable: 'A saved API key cannot be opened here, or the key file is unsafe (readable by others).',
  review_too_large: 'A Review-mode copy would exceed its limits (1,000,000 files), or a file is over the size limit.',
  review_failed: "A Review-mode copy could not be made, read or changed (the message says which step and why).",
  review_busy: 'Another review operation on this chat is still running; try again when it ends.',
  internal: 'An unexpected failure inside Berth; try again, and restart Berth if it persists.',
};

const RPC_CODES: { code: number; name: string; meaning: string }[] = [
  { code: RPC_PARSE_ERROR, name: 'Parse error', meaning: 'The message is not valid JSON.' },
  { code: RPC_INVALID_REQUEST, name: 'Invalid request', meaning: 'Not a JSON-RPC 2.0 request object. Batches (arrays) are refused with this code too.' },
  { code: RPC_METHOD_NOT_FOUND, name: 'Method not found', meaning: 'No such method in the contract.' },
  { code: RPC_INVALID_PARAMS, name: 'Invalid params', meaning: 'A BerthError of code `invalid_request`: `data.code` is `invalid_request`.' },
  { code: RPC_INTERNAL_ERROR, name: 'Internal error', meaning: 'An unexpected failure; the message is always "internal error" and `data.code` is `internal`.' },
  { code: RPC_BERTH_ERROR, name: 'Berth error', meaning: 'Any other BerthError: `data.code` is one of the codes below, `data.hint` the next step.' },
];

function schemaJson(schema: z.ZodType, io: 'input' | 'output'): string {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return JSON.stringify(json, null, 2);
}

function codeBlock(text: string): string {
  return ['```json', text, '```'].join('\n');
}

function anchor(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');
}

const UNDOCUMENTED = '(No description yet: add one in scripts/gen-api-doc.ts.)';

/** The whole document, deterministic: the same contract always renders the same text. */
export function renderApiDoc(): string {
  const methodNames = Object.keys(methods) as MethodName[];
  const eventNames = Object.keys(events) as EventName[];
  const out: string[] = [];

  out.push('# Berth API');
  out.push('');
  out.push('<!-- Generated by `npm run docs:api` from shared/contract.ts and shared/errors.ts. Do not edit by hand. -->');
  out.push('');
  out.push(
    'Every client reaches the core through the same contract: methods (one JSON object in, one out) and events. ' +
      'How each transport carries them (in-process, Electron IPC, JSON-RPC 2.0 over a WebSocket) is in ' +
      '[transport.md](transport.md). Over the browser host a call is ' +
      '`{"jsonrpc":"2.0","id":1,"method":"chats.list","params":{}}` sent to `ws://127.0.0.1:<port>/rpc`, and an ' +
      'event arrives as a notification `{"jsonrpc":"2.0","method":"<event>","params":<payload>}`.',
  );
  out.push('');
  out.push(
    'Schemas below are JSON Schema (draft 2020-12). Requests show what a client may send (fields with a `default` may be ' +
      'left out); responses and events show what the core sends back.',
  );
  out.push('');
  out.push('## Contents');
  out.push('');
  out.push('- [Methods](#methods)');
  for (const name of methodNames) out.push(`  - [\`${name}\`](#${anchor(name)})`);
  out.push('- [Events](#events)');
  for (const name of eventNames) out.push(`  - [\`${name}\`](#${anchor(`event ${name}`)})`);
  out.push('- [Errors](#errors)');
  out.push('');

  out.push('## Methods');
  out.push('');
  for (const name of methodNames) {
    const method = methods[name];
    out.push(`### ${name}`);
    out.push('');
    out.push(METHOD_DESCRIPTIONS[name] ?? UNDOCUMENTED);
    out.push('');
    out.push('Request (`params`):');
    out.push('');
    out.push(codeBlock(schemaJson(method.request, 'input')));
    out.push('');
    out.push('Response (`result`):');
    out.push('');
    out.push(codeBlock(schemaJson(method.response, 'output')));
    out.push('');
  }

  out.push('## Events');
  out.push('');
  for (const name of eventNames) {
    out.push(`### Event ${name}`);
    out.push('');
    out.push(EVENT_DESCRIPTIONS[name] ?? UNDOCUMENTED);
    out.push('');
    out.push('Payload (`params`):');
    out.push('');
    out.push(codeBlock(schemaJson(events[name], 'output')));
    out.push('');
  }

  out.push('## Desktop folder picker (Electron IPC only)');
  out.push('');
  out.push(
    'The desktop app never takes a host path from its page (`workspace.attach` and `workspace.browse` are not reachable over IPC). ' +
      '`berth:pickFolder` shows the native dialog in main and attaches the chosen folder at once, unless attaching it would stop ' +
      "what runs in the chat's terminals (`workspace.attachPreview`'s `needsConfirmation`): then main keeps the path and answers " +
      '`confirm: { token, reason, running }`, and the page, having asked the user, answers on `berth:confirmFolder`. A token is good once, only ' +
      `for the window it was given to, for ${FOLDER_CHOICE_TTL_MS / 60_000} minutes. Both answer inside \`{ ok, result | error }\`.`,
  );
  out.push('');
  out.push('### berth:pickFolder');
  out.push('');
  out.push('Request:');
  out.push('');
  out.push(codeBlock(schemaJson(PickFolderRequest, 'input')));
  out.push('');
  out.push('### berth:confirmFolder');
  out.push('');
  out.push('Request:');
  out.push('');
  out.push(codeBlock(schemaJson(ConfirmFolderRequest, 'input')));
  out.push('');
  out.push('### Result of both');
  out.push('');
  out.push(codeBlock(schemaJson(PickFolderResult, 'output')));
  out.push('');

  out.push('## Errors');
  out.push('');
  out.push(
    'A failed call answers with a JSON-RPC error. Its `message` is written for the person using the app; ' +
      '`data.code` says which failure it is and `data.hint`, when present, the next step:',
  );
  out.push('');
  out.push(codeBlock('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"That chat no longer exists.","data":{"code":"not_found","hint":"…"}}}'));
  out.push('');
  out.push('### JSON-RPC codes');
  out.push('');
  out.push('| code | name | meaning |');
  out.push('|---|---|---|');
  for (const c of RPC_CODES) out.push(`| ${c.code} | ${c.name} | ${c.meaning} |`);
  out.push('');
  out.push('### Berth error codes (`data.code`)');
  out.push('');
  out.push('| code | JSON-RPC code | meaning |');
  out.push('|---|---|---|');
  for (const code of ERROR_CODES) {
    const rpc = code === 'invalid_request' ? '-32602' : code === 'internal' ? '-32000, or -32603 when not a BerthError' : '-32000';
    out.push(`| \`${code}\` | ${rpc} | ${ERROR_DESCRIPTIONS[code] ?? UNDOCUMENTED} |`);
  }
  out.push('');
  return out.join('\n');
}

function isMain(): boolean {
  const entry = process.argv[1];
  return entry !== undefined && path.resolve(entry) === fileURLToPath(import.meta.url);
}

if (isMain()) {
  const text = renderApiDoc();
  const previous = fs.existsSync(API_DOC_PATH) ? fs.readFileSync(API_DOC_PATH, 'utf8') : null;
  if (previous === text) {
    process.stdout.write(`${path.relative(process.cwd(), API_DOC_PATH)} is up to date.\n`);
  } else {
    fs.writeFileSync(API_DOC_PATH, text);
    process.stdout.write(`Wrote ${path.relative(process.cwd(), API_DOC_PATH)}.\n`);
  }
}

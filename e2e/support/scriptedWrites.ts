/**
 * A scripted agent for the Review e2e files: for each thing the user asks, one write_file call,
 * then (after its result) a short answer. Anything else is an error the test shows.
 */
import type { RecordedRequest, Step } from '../../test/support/openaiTestServer.js';

export interface ScriptedWrite {
  path: string;
  content: string;
  answer: string;
}

export function writeResponder(script: Record<string, ScriptedWrite>, name: string): (req: RecordedRequest) => Step {
  return (req) => {
    const messages = req.body.messages;
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const step = script[typeof lastUser?.content === 'string' ? lastUser.content : ''];
    if (!step) return { status: 500, error: { message: `${name}: no script for ${JSON.stringify(lastUser?.content)}` } };
    if (messages[messages.length - 1]?.role === 'tool') return { text: step.answer };
    return { toolCalls: [{ name: 'write_file', arguments: { path: step.path, content: step.content } }] };
  };
}

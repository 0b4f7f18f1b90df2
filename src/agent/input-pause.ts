import { InputUnavailableError } from '../errors/input-errors';
import type { InputAnswer, InputRequest, InputSink } from '../session/elicitation';
import type { ToolCall } from '../session/message';
import type { Waiting } from './child-pause';
import { ApprovalDecisionError } from './errors';
import { setOwn, type RunState, type SettledCall } from './run-state';
import type { PendingInput, ResumeDecision } from './types';

export type { PendingInput };

/** What a call's sink was asked last, when that went unanswered. */
export interface Asked {
  request?: InputRequest;
}

/*
 * `context.elicit` in the agent runner: a human decision with data. The tool's request pauses the
 * run like an approval (the pending input is stored with the paused run); the app's answer is
 * written by the same compare-and-set and claim as a decision; on resume the call runs again and
 * its n-th `elicit` gets the n-th stored answer (checked by the input class's pipeline in the
 * registry). The step journal replays the response's other calls.
 */

/**
 * Thrown by the runner's sink when the call's request has no answer yet. An InputUnavailableError,
 * so the registry passes it through as it does any unanswerable request; a tool that catches it
 * and returns goes on without the answer (nothing pauses).
 */
export class InputPendingError extends InputUnavailableError {
  constructor(readonly request: InputRequest) {
    super(request.mode, 'the run is paused until the user answers');
  }
}

/** The sink of one call: stored answers in order, then a pause on the first unanswered request. */
export function pausingSink(answers: readonly InputAnswer[] | undefined, asked: Asked): InputSink {
  let next = 0;
  return (request) => {
    const answer = answers?.[next++];
    if (answer !== undefined) return Promise.resolve(answer);
    asked.request = request;
    return Promise.reject(new InputPendingError(request));
  };
}

/** The call's pending input when it ended on its unanswered request (a tool that caught it and returned went on without). */
export function pausedInput(error: unknown, asked: Asked, call: ToolCall, args: string | object): PendingInput | undefined {
  if (!(error instanceof InputPendingError) || !asked.request) return undefined;
  const request = JSON.parse(JSON.stringify(asked.request)) as InputRequest;
  return { toolCallId: call.id, name: call.name, arguments: typeof args === 'string' ? args : JSON.stringify(args), request };
}

/**
 * What a response's calls wait on, if anything: inputs asked, calls of paused child runs (see
 * child-pause.ts); then its finished calls are kept with the paused run (`state.settled`), so that
 * when it resumes they are not run again.
 */
export function pausedOn(state: RunState, outcomes: readonly Outcome[]): Waiting | undefined {
  if (!outcomes.some((o) => o.input || o.nested)) return undefined;
  const settled: Record<string, SettledCall> = {};
  for (const o of outcomes)
    if (!o.input && !o.nested && !o.error && o.result !== undefined)
      setOwn(settled, o.call.id, { status: o.status, result: o.result, ...(o.parts && { parts: o.parts }) });
  state.settled = settled;
  return {
    inputs: outcomes.flatMap((o) => [...(o.input ? [o.input] : []), ...(o.nested?.inputs ?? [])]),
    approvals: outcomes.flatMap((o) => o.nested?.approvals ?? []),
  };
}

/** What `pausedOn` reads of a call's outcome (tool-runner.ts). */
interface Outcome extends Partial<Pick<SettledCall, 'result' | 'parts'>> {
  call: ToolCall;
  status: SettledCall['status'];
  input?: PendingInput;
  nested?: Waiting;
  error?: unknown;
}

/** Whether a resume's entry answers an input (`{ action }`) rather than deciding an approval (`{ approve }`). */
export function isInputDecision(decision: ResumeDecision | null | undefined): decision is InputAnswer {
  return decision !== null && typeof decision === 'object' && 'action' in decision;
}

/** An answer as stored: its action and (accepted form) its content as plain JSON; refused when malformed. */
export function storedAnswer(id: string, input: PendingInput, decision: InputAnswer): InputAnswer {
  const action = decision.action as unknown;
  if (action === 'decline' || action === 'cancel') return { action };
  if (action !== 'accept')
    throw new ApprovalDecisionError(
      `The answer to "${id}" must be { action: "accept", content? }, { action: "decline" } or { action: "cancel" }.`,
    );
  if (input.request.mode === 'url') return { action: 'accept' };
  const content = (decision as { content?: unknown }).content;
  if (content !== undefined && (content === null || typeof content !== 'object' || Array.isArray(content)))
    throw new ApprovalDecisionError(`The accepted answer to "${id}" must carry its form's fields as an object in "content".`);
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(content ?? {}));
  } catch {
    throw new ApprovalDecisionError(`The accepted answer to "${id}" is not plain JSON.`);
  }
  return { action: 'accept', content: copy };
}

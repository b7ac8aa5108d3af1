/**
 * The profile form's "Check connection" (engine.check) as a page may call it: counted, reading
 * only key files saved with the profile, and answering one sentence for any engine that does
 * not answer (policy/engineCheck.ts says why). What the engine client really said goes to
 * main's log, for the person at this computer.
 */
import type { EngineSetting, EngineStatus } from '../../../shared/contract.js';
import type { Clock } from '../base/clock.js';
import { engineSettingProblem } from '../engine/engineSettingCheck.js';
import { addressOf, countCheck, couldNotConnect, filesAreSaved, isSavedSetting, saveFirst, tooManyChecks } from '../policy/engineCheck.js';
import type { EngineRegistry } from './engineRegistry.js';

export interface EngineCheckDeps {
  engines: Pick<EngineRegistry, 'check' | 'refFor'>;
  /** The engine setting saved with this profile; null when there is no such profile. */
  savedEngine(profile: string): EngineSetting | null;
  clock: Clock;
  log(line: string): void;
}

/** An error and its causes, in one line, for the log. */
export function causeChain(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    parts.push(`${e instanceof Error ? e.message : String(e)}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  return parts.join(' <- ');
}

export class EngineCheckGate {
  private recent: number[] = [];

  constructor(private readonly deps: EngineCheckDeps) {}

  async check(setting: EngineSetting, profile: string | undefined): Promise<EngineStatus> {
    const counted = countCheck(this.recent, this.deps.clock.now());
    if (!counted) throw tooManyChecks();
    this.recent = counted;
    const ref = this.deps.engines.refFor(setting);
    // A context that is not in the user's Docker config: said as it is, nothing was connected to.
    if (!ref) return this.deps.engines.check(setting);
    const address = addressOf(setting, ref.label);
    const saved = profile === undefined ? null : this.deps.savedEngine(profile);
    if (!filesAreSaved(setting, saved)) return saveFirst(address);
    const problem = engineSettingProblem(setting);
    if (problem) {
      this.deps.log(`engine.check: ${address}: ${causeChain(problem)}`);
      return couldNotConnect(address, { engine: ref });
    }
    let heard = false;
    const status = await this.deps.engines.check(setting, (error) => {
      heard = true;
      this.deps.log(`engine.check: ${address}: ${causeChain(error)}`);
    });
    if (status.state === 'ok' || isSavedSetting(setting, saved)) return status;
    // An engine Berth already talks to answers with its monitor's words.
    if (!heard) this.deps.log(`engine.check: ${address}: ${status.message ?? 'no answer'}`);
    return couldNotConnect(address, status);
  }
}

/**
 * The sandbox's use, live, inside its details: CPU, memory against the
 * profile's limit and processes as sparklines from the engine's stats stream, watched only while
 * this is shown (unwatched when it goes), and the size of the chat's home and writable layer.
 */
import { useCallback, useEffect, useState } from 'react';
import type { SandboxStatsSample, SandboxUsage } from '../../../shared/contract';
import { errorInfo, type ApiErrorInfo } from '../../api/errors';
import { useActions, useConnection } from '../../services/context';
import { sandboxActions } from './actions';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { formatBytes } from '../../ui/format';
import { Sparkline } from '../../ui/Sparkline';

/** About a minute of readings (the engine sends one a second). */
export const KEEP_SAMPLES = 60;

const percent = (used: number, limit: number | null) => (limit ? ` (${Math.round((used / limit) * 100)} %)` : '');

export function SandboxUse({ chatId, running, cpuLimit }: { chatId: string; running: boolean; cpuLimit: number | null }) {
  const sandbox = useActions(sandboxActions);
  const epoch = useConnection((c) => c.epoch);
  const [samples, setSamples] = useState<SandboxStatsSample[]>([]);
  const [usage, setUsage] = useState<SandboxUsage | null>(null);
  const [error, setError] = useState<ApiErrorInfo | null>(null);

  // Watch while shown and running; a reconnect (epoch) watches again on the new link.
  useEffect(() => {
    if (!running) return;
    setSamples([]);
    return sandbox.watchStats(
      chatId,
      (sample) => setSamples((list) => [...list.slice(-(KEEP_SAMPLES - 1)), sample]),
      (e) => setError(errorInfo(e)),
    );
  }, [sandbox, chatId, running, epoch]);

  const measure = useCallback(() => {
    sandbox.usage(chatId).then(setUsage, (e: unknown) => setError(errorInfo(e)));
  }, [sandbox, chatId]);
  // Again when the sandbox starts or stops: the writable layer comes and goes with the container.
  useEffect(measure, [measure, running]);

  const last = samples.at(-1) ?? null;
  const cpuValues = samples.map((s) => s.cpus ?? 0);
  return (
    <div className="sandbox-use" role="group" aria-label="Sandbox use">
      {error && <ErrorAlert error={error} onDismiss={() => setError(null)} />}
      {running ? (
        last === null ? (
          <p className="muted">Reading the sandbox’s use…</p>
        ) : (
          <dl className="use-grid">
            <dt>CPU</dt>
            <dd>
              <Sparkline values={cpuValues} max={cpuLimit} label={`CPU over the last ${samples.length} s`} />
              <span>
                {last.cpus === null ? '…' : last.cpus.toFixed(2)} of {cpuLimit ?? '?'} cores
              </span>
            </dd>
            <dt>Memory</dt>
            <dd>
              <Sparkline values={samples.map((s) => s.memoryBytes)} max={last.memoryLimitBytes} label={`Memory over the last ${samples.length} s`} />
              <span>
                {formatBytes(last.memoryBytes)}
                {last.memoryLimitBytes !== null && ` of ${formatBytes(last.memoryLimitBytes)}${percent(last.memoryBytes, last.memoryLimitBytes)}`}
              </span>
            </dd>
            <dt>Processes</dt>
            <dd>
              <Sparkline values={samples.map((s) => s.pids)} max={last.pidsLimit} label={`Processes over the last ${samples.length} s`} />
              <span>
                {last.pids}
                {last.pidsLimit !== null && ` of ${last.pidsLimit}`}
              </span>
            </dd>
          </dl>
        )
      ) : (
        <p className="muted">Live use shows while the sandbox runs.</p>
      )}
      <dl className="use-grid">
        <dt>Home folder</dt>
        <dd>{usage === null ? '…' : usage.homeBytes === null ? 'not made yet' : `${usage.homeCapped ? 'more than ' : ''}${formatBytes(usage.homeBytes)}`}</dd>
        <dt>Writable layer</dt>
        <dd>{usage === null ? '…' : usage.writableLayerBytes === null ? 'no container' : formatBytes(usage.writableLayerBytes)}</dd>
      </dl>
      <button type="button" className="small" onClick={measure}>
        Measure again
      </button>
    </div>
  );
}

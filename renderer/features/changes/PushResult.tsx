/**
 * What a push of the chat's branch did: main's sentence, the pull-request page for a known forge
 * (or the pushed ref to copy for another remote), and git's own words on demand.
 */
import type { Response } from '../../../shared/contract';

export type PushResponse = Response<'review.push'>;

export function PushResult({ result, onDismiss }: { result: PushResponse; onDismiss: () => void }) {
  const ref = `refs/heads/${result.branch}`;
  return (
    <div role={result.ok ? 'status' : 'alert'} className={result.ok ? 'notice' : 'alert'} aria-label={result.ok ? 'Pushed' : 'Push refused'}>
      <div className="alert-body">
        <p className="alert-message">{result.message}</p>
        {result.ok &&
          (result.pullRequestUrl ? (
            <p>
              <a href={result.pullRequestUrl} target="_blank" rel="noopener noreferrer">
                Open pull request
              </a>{' '}
              <span className="muted">on {new URL(result.pullRequestUrl).host}</span>
            </p>
          ) : (
            <p>
              Pushed to {result.remoteUrl ?? result.remote} as <code>{ref}</code>{' '}
              <button type="button" onClick={() => void navigator.clipboard?.writeText(ref)}>
                Copy ref
              </button>
            </p>
          ))}
        {result.output.trim() && (
          <details>
            <summary>git&apos;s output</summary>
            <pre className="push-output">{result.output.trim()}</pre>
          </details>
        )}
      </div>
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </div>
  );
}

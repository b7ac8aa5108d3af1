/** A progress bar: determinate when the fraction is known, indeterminate (animated) when not. */
export function ProgressBar({ fraction, label, text }: { fraction: number | null; label: string; text?: string | undefined }) {
  const percent = fraction === null ? null : Math.round(Math.min(1, Math.max(0, fraction)) * 100);
  return (
    <div
      className={`progress${percent === null ? ' indeterminate' : ''}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent ?? undefined}
      aria-valuetext={text ?? (percent === null ? undefined : `${percent}%`)}
    >
      <div className="progress-fill" style={percent === null ? undefined : { width: `${percent}%` }} />
    </div>
  );
}

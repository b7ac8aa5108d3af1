/**
 * A small line of recent values (SVG, no library: a polyline is all it takes), scaled to `max`
 * when given (a limit) or to the highest value. Its name says the value now, for screen readers.
 */
export interface SparklineProps {
  values: readonly number[];
  /** The top of the scale (the limit); the highest value when absent. */
  max?: number | null;
  label: string;
  width?: number;
  height?: number;
}

export function sparkPoints(values: readonly number[], max: number, width: number, height: number): string {
  if (values.length === 0) return '';
  const step = values.length === 1 ? 0 : width / (values.length - 1);
  const top = max > 0 ? max : 1;
  return values
    .map((v, i) => {
      const y = height - (Math.min(Math.max(v, 0), top) / top) * (height - 2) - 1;
      return `${(i * step).toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
}

export function Sparkline({ values, max = null, label, width = 96, height = 24 }: SparklineProps) {
  const top = max ?? Math.max(0, ...values);
  return (
    <svg className="sparkline" role="img" aria-label={label} width={width} height={height} viewBox={`0 0 ${width} ${height}`}>
      <polyline fill="none" stroke="currentColor" strokeWidth="1.5" points={sparkPoints(values, top, width, height)} />
    </svg>
  );
}

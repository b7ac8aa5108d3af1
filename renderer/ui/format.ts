/** Numbers as the page shows them, the same in every feature. */

/** A size in binary units (1024), as the engine and `du` count: "5.0 MiB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}

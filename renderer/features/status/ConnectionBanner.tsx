/**
 * What to do when the link to the browser host has expired (the host was restarted: its new
 * token refuses this page's). Retrying cannot help, so it says so once, at the top, with the way
 * back. The status bar says the rest (connecting, reconnecting).
 */
import { LINK_EXPIRED, linkExpiredHint } from '../../api/wsClient';
import { useConnection } from '../../services/context';

export function ConnectionBanner() {
  const expired = useConnection((s) => s.state === 'expired');
  if (!expired) return null;
  return (
    <div className="connection-banner" role="alert">
      <strong>{LINK_EXPIRED}</strong>
      <p>{linkExpiredHint(typeof location === 'undefined' ? null : location.origin)}</p>
    </div>
  );
}
